[profile]
version=1
period=7200s
