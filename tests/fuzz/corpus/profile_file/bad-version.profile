[profile]
version=2
period=250ms
