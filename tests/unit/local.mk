# unit tests: each component adds its test programs
