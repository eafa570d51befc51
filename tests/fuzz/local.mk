# tests/fuzz (libFuzzer, clang) and tests/sanitize (ASan+UBSan make check)
# are driven by their run.sh scripts, outside automake's compiler choice;
# tests/run-all.sh runs them bounded.  `make fuzz-long`: an hour per target.
EXTRA_DIST += tests/fuzz tests/sanitize
FUZZ_LONG_SECONDS = 3600
fuzz-long:
	$(top_srcdir)/tests/fuzz/run.sh --seconds $(FUZZ_LONG_SECONDS) --keep \
		--build $(abs_top_builddir)/fuzz
fuzz:
	$(top_srcdir)/tests/fuzz/run.sh --build $(abs_top_builddir)/fuzz
.PHONY: fuzz fuzz-long
