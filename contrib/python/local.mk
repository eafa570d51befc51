# contrib/python: the pip-installable "orrery" package (ctypes binding of
# liborrery-runtime, the PyTorch DDP hook), doc/orrery-python.7.  Not
# installed by make install: users pip-install it into their training
# environment (the man page says how).
EXTRA_DIST += contrib/python/pyproject.toml contrib/python/setup.py \
	contrib/python/README contrib/python/orrery/__init__.py \
	contrib/python/orrery/_config.py contrib/python/orrery/_runtime.py \
	contrib/python/orrery/torch.py
dist_man_MANS += doc/orrery-python.7

# 2-process gloo DDP job on CPU with Debian's python3-torch (skipped only
# when it is missing); needs the runtime and orrery-capture built.
TESTS += tests/python/test_torch_ddp.sh
EXTRA_DIST += tests/python/test_torch_ddp.sh tests/python/test_torch_ddp.py \
	tests/python/ddp_job.py
