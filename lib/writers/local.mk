# writers: SVG drawing of a link's unified circle.
lib_liborrery_la_SOURCES += lib/writers/svg.hpp lib/writers/svg.cpp
