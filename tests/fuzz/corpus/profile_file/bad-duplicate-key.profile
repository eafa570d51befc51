[profile]
version=1
period=250ms
period=500ms
