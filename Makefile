# Hermes: `make run` builds and starts Hermes; `make test` builds, lints and runs the tests.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMPS := .stamps
PYTEST_ARGS ?=

# PyO3 and cargo must see the venv's interpreter, also for clippy.
export PYO3_PYTHON := $(abspath $(BIN)/python)
export VIRTUAL_ENV := $(abspath $(VENV))
export PATH := $(abspath $(BIN)):$(PATH)

RUST_SOURCES := $(shell find hermes_native/src hermes_native/data -type f 2>/dev/null) \
                hermes_native/Cargo.toml Cargo.toml $(wildcard Cargo.lock)

.PHONY: help run test lint bench build clean

help:
	@echo "make run    build and start Hermes on its embedded defaults"
	@echo "make test   build, lint and run the test suite"
	@echo "make lint   ruff, mypy, stubtest, cargo fmt --check, cargo clippy -D warnings"
	@echo "make bench  run every benchmark in benchmarks/ and print their tables"
	@echo "make clean  remove the venv and build outputs"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip "maturin>=1.9,<2"

# Dependencies and the release build of the extension, redone when pyproject or Rust sources change.
$(STAMPS)/build: $(BIN)/python pyproject.toml $(RUST_SOURCES)
	@mkdir -p $(STAMPS)
	$(BIN)/maturin develop --release --extras dev --quiet
	@touch $@

build: $(STAMPS)/build

run: build
	$(BIN)/hermes

lint: build
	$(BIN)/ruff check hermes tests benchmarks
	$(BIN)/ruff format --check hermes tests benchmarks
	$(BIN)/mypy
	$(BIN)/python -m mypy.stubtest hermes._native --concise
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets --all-features --release -- -D warnings
	cargo test --workspace --release --quiet

test: lint
	$(BIN)/python -m pytest $(PYTEST_ARGS)

bench: build
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) $(STAMPS) target .mypy_cache .ruff_cache .pytest_cache .hypothesis
	find hermes -name '_native*.so' -delete
