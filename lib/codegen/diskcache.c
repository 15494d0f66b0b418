/* codegen/diskcache: the persistent kernel cache. Compiled kernel objects
 * are kept on disk so that a fresh process loads a kernel instead of
 * emitting, optimising and compiling it again.
 *
 * The key is what the kernel is made from, its recipe (a repack kernel: the
 * two types as blobs, the target facts the planner reads and the variant;
 * a sparse kernel: its IR), with the hash of the library's sources (the
 * generators that turn a recipe into IR), the pass pipeline, the host CPU
 * and its features, and the LLVM version: any change to what would be
 * compiled, or how, or for what, is another key. Keying a repack kernel on
 * its inputs rather than its IR lets a hit skip emitting the IR, which for
 * the big unrolled kernels costs more than the rest of the load (docs/
 * codegen.md). The file is named by the key's 64-bit hash and holds the
 * whole key and a hash of the object, so a hash collision is a miss, not a
 * wrong kernel, and so is a damaged object. Files are written to a private
 * temporary name and renamed into place (atomic on POSIX), so readers in
 * other processes see no file or a whole one; a file whose lengths do not
 * match its size (a crash before the data reached the disk) is a miss.
 * Every failure of the cache is a miss or a skipped store: the kernel is
 * then compiled as if there were no cache.
 *
 * Location: $LAYOUTC_CACHE_DIR (empty or "off": no cache), else
 * $XDG_CACHE_HOME/layoutc/kernels, else $HOME/.cache/layoutc/kernels. */
#include "codegen/codegen.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <llvm-c/BitWriter.h>
#include <llvm-c/TargetMachine.h>

#include "source_hash.h"

#define MAGIC "LYK2"

/* The cache directory (created if missing), or false when there is none. */
static bool cache_dir(char *out, size_t cap) {
  const char *env = getenv("LAYOUTC_CACHE_DIR"), *base = NULL, *tail = "layoutc/kernels";
  int n;
  if (env) {
    if (!*env || !strcmp(env, "off"))
      return false;
    n = snprintf(out, cap, "%s", env);
  } else if ((base = getenv("XDG_CACHE_HOME")) && *base) {
    n = snprintf(out, cap, "%s/%s", base, tail);
  } else if ((base = getenv("HOME")) && *base) {
    n = snprintf(out, cap, "%s/.cache/%s", base, tail);
  } else {
    return false;
  }
  if (n <= 0 || (size_t)n >= cap)
    return false;
  for (char *p = out + 1;; p++) { /* mkdir -p */
    bool end = *p == 0;
    if (*p == '/' || end) {
      *p = 0;
      if (mkdir(out, 0700) && errno != EEXIST)
        return false;
      if (!end)
        *p = '/';
    }
    if (end)
      return true;
  }
}

/* Renames the functions m defines from prefix `from` to `to`. */
static void rename_defined(LLVMModuleRef m, const char *from, const char *to) {
  size_t nf = strlen(from);
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    if (LLVMIsDeclaration(f) || len < nf || strncmp(name, from, nf))
      continue;
    char buf[256];
    int k = snprintf(buf, sizeof buf, "%s%.*s", to, (int)(len - nf), name + nf);
    if (k > 0 && (size_t)k < sizeof buf)
      LLVMSetValueName2(f, buf, (size_t)k);
  }
}

bool lyc_cache_enabled(void) {
  char dir[4096];
  return cache_dir(dir, sizeof dir);
}

bool lyc_cache_key(LycCacheKey *k, const void *recipe, size_t len, const char *fixed_name, const char *pipeline) {
  memset(k, 0, sizeof *k);
  const char *cpu = lyc_host_cpu(), *features = lyc_host_features();
  unsigned major, minor, patch;
  LLVMGetVersion(&major, &minor, &patch);
  LyBuf b;
  ly_buf_init(&b);
  ly_buf_printf(&b, "layoutc kernel %s\nsource %s\nllvm %u.%u.%u\ncpu %s\nfeatures %s\npipeline %s\n", fixed_name,
                LAYOUTC_SOURCE_HASH, major, minor, patch, cpu, features, pipeline);
  ly_buf_put(&b, recipe, len);
  if (b.oom) {
    ly_buf_free(&b);
    return false;
  }
  k->text = b.data, k->len = b.len;
  k->hash = ly_hash_bytes(0x6c61796f7574634bULL, k->text, k->len);
  snprintf(k->name, sizeof k->name, "%s_%016llx", fixed_name, (unsigned long long)k->hash);
  return true;
}

bool lyc_cache_key_module(LycCacheKey *k, LLVMModuleRef m, const char *fixed_name, const char *pipeline) {
  LLVMSetModuleIdentifier(m, "layoutc.kernel", 14);
  /* The module as bitcode: deterministic like the printed IR, and a fifth
   * of the time to produce (the printer tracks columns for comments). */
  LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(m);
  if (!bc)
    return false;
  bool ok = lyc_cache_key(k, LLVMGetBufferStart(bc), LLVMGetBufferSize(bc), fixed_name, pipeline);
  LLVMDisposeMemoryBuffer(bc);
  if (ok)
    rename_defined(m, fixed_name, k->name);
  return ok;
}

void lyc_cache_key_free(LycCacheKey *k) {
  ly_free(k->text);
  k->text = NULL;
}

static bool path_of(const LycCacheKey *k, char *out, size_t cap) {
  char dir[4096];
  if (!cache_dir(dir, sizeof dir))
    return false;
  int n = snprintf(out, cap, "%s/%016llx.lyk", dir, (unsigned long long)k->hash);
  return n > 0 && (size_t)n < cap;
}

static bool read_all(int fd, void *buf, size_t n) {
  for (size_t got = 0; got < n;) {
    ssize_t r = read(fd, (char *)buf + got, n - got);
    if (r <= 0 && !(r < 0 && errno == EINTR))
      return false;
    got += r > 0 ? (size_t)r : 0;
  }
  return true;
}

static bool write_all(int fd, const void *buf, size_t n) {
  for (size_t put = 0; put < n;) {
    ssize_t w = write(fd, (const char *)buf + put, n - put);
    if (w <= 0 && !(w < 0 && errno == EINTR))
      return false;
    put += w > 0 ? (size_t)w : 0;
  }
  return true;
}

/* File layout: MAGIC, key length, object length and the object's hash
 * (u64, host order), the key, the object. */
#define HEADER 28

static uint64_t object_hash(const void *obj, size_t len) { return ly_hash_bytes(0x6f626a6563744c59ULL, obj, len); }

LLVMMemoryBufferRef lyc_cache_load(const LycCacheKey *k) {
  char path[4200];
  if (!path_of(k, path, sizeof path))
    return NULL;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  struct stat st;
  char magic[4];
  uint64_t klen, olen, ohash;
  LLVMMemoryBufferRef obj = NULL;
  char *data = NULL;
  if (fstat(fd, &st) || !read_all(fd, magic, 4) || memcmp(magic, MAGIC, 4) || !read_all(fd, &klen, 8) ||
      !read_all(fd, &olen, 8) || !read_all(fd, &ohash, 8) || klen != k->len || olen > (uint64_t)st.st_size ||
      (uint64_t)st.st_size != HEADER + klen + olen || !(data = ly_malloc(klen + olen + 1)))
    goto out;
  if (read_all(fd, data, klen + olen) && !memcmp(data, k->text, klen) && object_hash(data + klen, olen) == ohash)
    obj = LLVMCreateMemoryBufferWithMemoryRangeCopy(data + klen, olen, k->name);
out:
  ly_free(data);
  close(fd);
  return obj;
}

void lyc_cache_store(const LycCacheKey *k, LLVMMemoryBufferRef obj) {
  char path[4200], tmp[4300];
  static unsigned counter;
  if (!path_of(k, path, sizeof path))
    return;
  unsigned serial = __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
  int n = snprintf(tmp, sizeof tmp, "%s.%ld.%u.tmp", path, (long)getpid(), serial);
  if (n <= 0 || (size_t)n >= sizeof tmp)
    return;
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    return;
  uint64_t klen = k->len, olen = LLVMGetBufferSize(obj), ohash = object_hash(LLVMGetBufferStart(obj), olen);
  bool ok = write_all(fd, MAGIC, 4) && write_all(fd, &klen, 8) && write_all(fd, &olen, 8) && write_all(fd, &ohash, 8) &&
            write_all(fd, k->text, klen) && write_all(fd, LLVMGetBufferStart(obj), olen);
  ok = close(fd) == 0 && ok;
  if (!ok || rename(tmp, path))
    unlink(tmp);
}
