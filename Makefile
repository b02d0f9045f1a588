# rooflens: the two commands a user needs are `make demo` and `make test`.
# Both install missing Debian packages first (scripts/install-deps.sh, apt).

BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo
ROOFLENS = $(BUILD)/rooflens

.PHONY: all deps build build-demo demo test test-slow test-sanitize fuzz bench docs clean

all: build

deps:
	@scripts/install-deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

# Every target: the programs, the test and benchmark programs (and the fuzz targets in a
# fuzz build).
build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# Only what the demo runs: the rooflens program, none of the test programs.
build-demo: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target rooflens

# The main job on the bundled default: ResNet-50 at fp16, fused per-layer costs, then the
# predicted V100 FP16 throughput at the largest batch that fits, with its roofline chart;
# this CPU probed and ResNet-50 measured on it; then the study of the whole bundled zoo on
# V100 FP16 at max batch, ending with the path of its HTML report.
demo: build-demo
	$(ROOFLENS) analyze models/resnet50.onnx --dtype fp16 --batch 1
	@mkdir -p $(BUILD)/demo
	$(ROOFLENS) predict models/resnet50.onnx --device v100 --dtype fp16 --batch max --roofline $(BUILD)/demo/resnet50-v100-fp16.svg
	@echo "roofline chart: $(BUILD)/demo/resnet50-v100-fp16.svg"
	$(ROOFLENS) probe cpu --quick --out $(BUILD)/demo/local-cpu.json
	$(ROOFLENS) measure models/resnet50.onnx --batch 8 --device $(BUILD)/demo/local-cpu.json --max-seconds 5
	$(ROOFLENS) study --zoo --device v100 --dtype fp16 --batch max --report $(BUILD)/demo/study

# The whole default suite (unit, golden, zoo, malformed corpus), then the sanitizer run
# over the malformed corpus.
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE slow
	$(MAKE) test-sanitize

# Importer and analysis over the malformed-input corpus, and the study/fold bad-input cases,
# under ASan + UBSan.
test-sanitize: deps
	cmake -S . -B $(BUILD)-asan -DCMAKE_BUILD_TYPE=Debug -DROOFLENS_SANITIZE=ON -DROOFLENS_BUILD_BENCH=OFF
	cmake --build $(BUILD)-asan -j $(JOBS) --target rooflens
	tests/malformed/run_corpus.sh $(BUILD)-asan/rooflens
	tests/cli/study_bad_input.sh $(BUILD)-asan/rooflens

# libFuzzer targets (fuzz/) over the NATS-Bench pickle/bzip2 reader and the ONNX importer +
# analysis, built with clang under ASan + UBSan in build-fuzz, FUZZ_SECONDS (default 60) each.
# Not part of `make test`.
fuzz: deps
	scripts/run-fuzz.sh $(FUZZ_SECONDS)

test-slow: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L slow

bench: build
	bench/analyze_zoo_vs_onnx.sh $(ROOFLENS)
	bench/probe_vs_loop.sh $(BUILD)
	bench/peer_pytorch.sh $(ROOFLENS)
	bench/study_zoo.sh $(ROOFLENS)

# Regenerates docs/generated/predictions/ from the bundled models.
docs: build
	scripts/gen-docs.sh $(ROOFLENS)

clean:
	rm -rf $(BUILD) $(BUILD)-asan
