[profile]
version=1
