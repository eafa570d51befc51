[profile]
version=1
period=1ms
[phase.0]
offset=0us
duration=1us
demand=1Mbps
