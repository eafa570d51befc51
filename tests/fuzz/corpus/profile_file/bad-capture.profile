[profile]
version=1
period=250ms

[capture]
iterations=many
