# lit configuration for layoutc: lit tests live under test/, tools come from the build tree.
import os
import shutil
import lit.formats

config.name = "layoutc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".test", ".mlir", ".lyt"]
config.excludes = ["lit.site.cfg.py", "Inputs", "CMakeLists.txt", "__pycache__", "lib"]
config.test_source_root = os.path.join(config.layoutc_src_root, "test")
config.test_exec_root = os.path.join(config.layoutc_obj_root, "test")

bindir = os.path.join(config.layoutc_obj_root, "bin")
unitdir = os.path.join(config.layoutc_obj_root, "test", "unit")
path = os.pathsep.join([bindir, unitdir, config.llvm_tools_dir, config.environment.get("PATH", os.environ["PATH"])])
config.environment["PATH"] = path
for var in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "LAYOUTC_FUZZ_SECONDS"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

# Repack plans choose non-temporal stores past a share of the host's last-level cache;
# the tests plan for the 16 MB of a 32 MB L3 on every host
config.environment["LAYOUTC_NT_THRESHOLD"] = str(16 << 20)
# (which also turns off streaming past the L2 on hosts whose stores pay for ownership, host.c;
# test/codegen/nt-stores.test sets that rule's size and answer itself),
# (transposes into rows a multiple of 4 KB apart past a 1 MB L2),
config.environment["LAYOUTC_ALIAS_NT_THRESHOLD"] = str(1 << 20)
# and cut source-order line copies into 16 KB write windows, as on Zen (none on a Xeon), where
# sweeps of few rows past the cache also read them in runs of Y blocks, and transposes of rows
# a multiple of 4 KB apart read them in runs of 256 bytes (a kilobyte on a Xeon).
config.environment["LAYOUTC_WRITE_WINDOW"] = str(16 << 10)
config.environment["LAYOUTC_FEW_ROW_RUNS"] = "1"
config.environment["LAYOUTC_ALIAS_RUN_BYTES"] = "256"

# i1 bit tiles transpose with GFNI where the host has it; the tests plan without it, so their
# plans and IR are the same on every host, and test/codegen/gfni.test runs the GFNI kernels on
# hosts that have the instructions (lit feature gfni).
config.environment["LAYOUTC_GFNI"] = "0"
# Conversions from 4-bit codes look them up with PSHUFB (lit feature ssse3; every x86-64-v2 host).
try:
    with open("/proc/cpuinfo") as f:
        flags = next((l.split(":", 1)[1].split() for l in f if l.startswith("flags")), [])
    for feature in ("gfni", "ssse3", "avx512_vbmi2"):
        if feature in flags:
            config.available_features.add(feature)
    # Dense -> sparse fills compress a vector's nonzeros where the host has AVX-512 F and VL.
    if "avx512f" in flags and "avx512vl" in flags:
        config.available_features.add("avx512-compress")
except OSError:
    pass

# Compiled repack kernels go to a persistent cache on disk: the tests use
# one inside the build tree, never the user's ~/.cache.
config.environment["LAYOUTC_CACHE_DIR"] = os.path.join(config.layoutc_obj_root, "test", "kernel-cache")

# Under the sanitizers every process is much slower: randomised tests run
# fewer cases (same checks).
if getattr(config, "sanitized", False):
    config.environment["LAYOUTC_TEST_QUICK"] = "1"
    config.available_features.add("sanitized")

# Tests that use NumPy need the Debian interpreter (python3-numpy).
python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else shutil.which("python3")
config.substitutions.append(("%python", python))
config.substitutions.append(("%testlib", os.path.join(config.layoutc_src_root, "test", "lib")))
config.substitutions.append(("%S_src", config.test_source_root))

# MLIR interop tests (test/mlir) need the real mlir-opt (mlir-19-tools).
# Headless Chromium renders `layoutc draw`'s SVGs in test/tools/draw-browser.test.
chromium = shutil.which("chromium")
if chromium:
    config.available_features.add("chromium")
    config.substitutions.append(("%chromium", chromium + " --headless --no-sandbox --disable-gpu "
                                 "--hide-scrollbars --no-first-run --disable-dev-shm-usage"))
if shutil.which("mlir-opt-19", path=path):
    config.available_features.add("mlir-opt")
if os.path.exists(os.path.join(bindir, "dnnl_oracle")):
    config.available_features.add("dnnl")
import subprocess
for module in ("numpy", "scipy"):  # python3-numpy, python3-scipy
    try:
        subprocess.check_call([python, "-c", "import " + module], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
        config.available_features.add(module)
    except Exception:
        pass
