lib_liborrery_la_SOURCES += lib/core/error.hpp lib/core/error.cpp \
	lib/core/types.hpp lib/core/types.cpp
