[profile]
version=1
period=250ms

[phase.0]
offset=200ms
duration=80ms
demand=45Gbps
