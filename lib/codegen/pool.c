/* codegen/pool: the repacker's own persistent worker threads, used for
 * multi-threaded kernel runs when the host has not lent its thread pool
 * (lyRepackerSetThreadPool). Workers start on demand and live until the
 * repacker is destroyed; several runs from different threads share them. */
#include "codegen/codegen.h"

#include <pthread.h>
#include <unistd.h>

typedef struct PoolJob {
  struct PoolJob *next;
  void (*fn)(int i, void *arg);
  void *arg;
  int n, next_index, done;
} PoolJob;

struct LycPool {
  pthread_mutex_t mu;
  pthread_cond_t work, finished;
  PoolJob *head, *tail; /* jobs with indices not yet taken */
  pthread_t *workers;
  int nworkers, cap;
  bool stop;
  bool spin; /* more than one CPU: idle workers spin before they sleep */
};

LycPool *lyc_pool_create(void) {
  LycPool *p = ly_malloc(sizeof *p);
  if (!p)
    return NULL;
  *p = (LycPool){.spin = sysconf(_SC_NPROCESSORS_ONLN) > 1};
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->work, NULL);
  pthread_cond_init(&p->finished, NULL);
  return p;
}

/* Takes the next index of the first queued job (p->mu held); NULL if none. */
static PoolJob *take(LycPool *p, int *i) {
  PoolJob *j = p->head;
  if (!j)
    return NULL;
  *i = j->next_index++;
  if (j->next_index == j->n) {
    __atomic_store_n(&p->head, j->next, __ATOMIC_RELEASE);
    if (!j->next)
      p->tail = NULL;
  }
  return j;
}

static void finish(LycPool *p, PoolJob *j) {
  if (++j->done == j->n)
    pthread_cond_broadcast(&p->finished);
}

/* A worker that runs out of work watches the queue this long before it
 * sleeps: waking a sleeping thread takes longer than a cache-resident
 * repack's share (OIhw -> OIhw16i16o 256x256x3x3, 4.7 MB, 2 threads: the
 * caller had done most of the work by the time the worker woke), and
 * callers often repack several tensors in a row. OpenMP runtimes spin the
 * same way. */
#define SPIN_SECONDS 200e-6

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ volatile("yield");
#endif
}

/* Spins (p->mu released) until work is queued, the pool stops, or
 * SPIN_SECONDS pass; returns with p->mu held. */
static void spin(LycPool *p) {
  pthread_mutex_unlock(&p->mu);
  double end = lyc_now_seconds() + SPIN_SECONDS;
  for (unsigned k = 0;; k++) {
    if (__atomic_load_n(&p->head, __ATOMIC_ACQUIRE) || __atomic_load_n(&p->stop, __ATOMIC_ACQUIRE))
      break;
    cpu_relax();
    if (!(k & 255) && lyc_now_seconds() > end)
      break;
  }
  pthread_mutex_lock(&p->mu);
}

static void *worker(void *arg) {
  LycPool *p = arg;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    PoolJob *j;
    int i;
    bool spun = !p->spin; /* on one CPU a spinning worker only delays the caller */
    while (!p->stop && !(j = take(p, &i))) {
      if (spun) {
        pthread_cond_wait(&p->work, &p->mu);
        spun = !p->spin; /* woken without work (another took it): watch again first */
      } else {
        spin(p);
        spun = true;
      }
    }
    if (p->stop)
      break;
    pthread_mutex_unlock(&p->mu);
    j->fn(i, j->arg);
    pthread_mutex_lock(&p->mu);
    finish(p, j);
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

/* Grows the pool towards n workers (p->mu held). Failing to start one is
 * not an error: the caller runs whatever no worker takes. */
static void grow(LycPool *p, int n) {
  if (n > p->cap) {
    pthread_t *w = ly_realloc(p->workers, (size_t)n * sizeof *w);
    if (!w)
      return;
    p->workers = w;
    p->cap = n;
  }
  while (p->nworkers < n && pthread_create(&p->workers[p->nworkers], NULL, worker, p) == 0)
    p->nworkers++;
}

void lyc_pool_run(LycPool *p, int n, void (*fn)(int i, void *arg), void *arg) {
  PoolJob job = {.fn = fn, .arg = arg, .n = n};
  pthread_mutex_lock(&p->mu);
  grow(p, n - 1);
  if (p->tail)
    p->tail->next = &job;
  else
    __atomic_store_n(&p->head, &job, __ATOMIC_RELEASE);
  p->tail = &job;
  pthread_cond_broadcast(&p->work);
  /* The caller works on its own job too, so it finishes even with no workers. */
  while (job.next_index < job.n) {
    int i = job.next_index++;
    if (job.next_index == job.n) { /* unlink: it may be anywhere in the queue */
      PoolJob **pp = &p->head, *prev = NULL;
      while (*pp != &job)
        prev = *pp, pp = &(*pp)->next;
      __atomic_store_n(pp, job.next, __ATOMIC_RELEASE);
      if (p->tail == &job)
        p->tail = prev;
    }
    pthread_mutex_unlock(&p->mu);
    fn(i, arg);
    pthread_mutex_lock(&p->mu);
    finish(p, &job);
  }
  while (job.done < job.n)
    pthread_cond_wait(&p->finished, &p->mu);
  pthread_mutex_unlock(&p->mu);
}

void lyc_pool_destroy(LycPool *p) {
  if (!p)
    return;
  pthread_mutex_lock(&p->mu);
  __atomic_store_n(&p->stop, true, __ATOMIC_RELEASE);
  pthread_cond_broadcast(&p->work);
  pthread_mutex_unlock(&p->mu);
  for (int i = 0; i < p->nworkers; i++)
    pthread_join(p->workers[i], NULL);
  ly_free(p->workers);
  pthread_cond_destroy(&p->work);
  pthread_cond_destroy(&p->finished);
  pthread_mutex_destroy(&p->mu);
  ly_free(p);
}
