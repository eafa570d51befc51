[profile]
version=1
period=250ms
# café in Latin-1
