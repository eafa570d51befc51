# Replaced at build time by setup.py with the libdir of liborrery-runtime.
# In the source tree nothing is recorded: ORRERY_RUNTIME_LIB or the loader's
# search path find the library.
LIBDIR = ""
