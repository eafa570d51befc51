this is not a key file
period=250ms
