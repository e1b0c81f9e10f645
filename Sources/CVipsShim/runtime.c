/* Process-wide libvips set-up: one-time initialisation, threads, cache, vector paths, errors. */
#include <dlfcn.h>
#include <pthread.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <vips/vips.h>
#include <vips/vector.h>
#include "warmcache_vips.h"

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_result = -1;

/* Swallows libvips warnings ("VIPS" log domain): broken inputs are reported as errors instead. */
static void
silent_log(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data)
{
    (void) domain; (void) level; (void) message; (void) data;
}

static void
init_once_body(void)
{
    init_result = VIPS_INIT("warm-cache") == 0 ? 0 : -1;
    if (init_result == 0)
        g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING, silent_log, NULL);
}

int
wc_vips_init(void)
{
    pthread_once(&init_once, init_once_body);
    return init_result;
}

void
wc_vips_configure(int threads_per_image, int cache_max_operations, size_t cache_max_bytes, int cache_max_files)
{
    vips_concurrency_set(threads_per_image);
    vips_cache_set_max(cache_max_operations);
    vips_cache_set_max_mem(cache_max_bytes);
    vips_cache_set_max_files(cache_max_files);
}

const char *
wc_vips_version(void)
{
    return vips_version_string();
}

int
wc_vips_vector_enabled(void)
{
    return vips_vector_isenabled() ? 1 : 0;
}

void
wc_vips_set_vector_enabled(int enabled)
{
    vips_vector_set_enabled(enabled ? TRUE : FALSE);
}

const char *
wc_orc_version(void)
{
    /* liborc is loaded as a dependency of libvips (when libvips was built with it); look its
     * version up by name so the shim does not link liborc itself. */
    const char *(*version)(void) = (const char *(*)(void)) dlsym(RTLD_DEFAULT, "orc_version_string");
    return version ? version() : NULL;
}

int
wc_vips_has_operation(const char *nickname)
{
    return vips_type_find("VipsOperation", nickname) != 0 ? 1 : 0;
}

void
wc_limit_malloc_arenas(int arenas)
{
#if defined(__GLIBC__)
    mallopt(M_ARENA_MAX, arenas);
    /* Fixed thresholds instead of glibc's sliding ones (which grow after each large free until
     * buffers of any size come from the heap, fragmenting it: RSS creeps up image after image).
     * Buffers up to 8 MB (a 1024 px wide RGB image is 2-3 MB, as are the encoders' working
     * buffers) are reused from the heap, and up to 16 MB of free heap top is kept for the next
     * image: mapping them afresh for every image had the kernel fault in and zero every page
     * again (3x the page faults on a photo warm, ~2 % of its CPU). Larger buffers are mapped and
     * returned as soon as they are freed. */
    mallopt(M_MMAP_THRESHOLD, 8 << 20);
    mallopt(M_TRIM_THRESHOLD, 16 << 20);
#else
    (void) arenas;
#endif
}

char *
wc_error_take(void)
{
    char *text = vips_error_buffer_copy();
    return text ? text : g_strdup("");
}

void
wc_free(void *pointer)
{
    g_free(pointer);
}

void
wc_unref(WCImage *image)
{
    if (image)
        g_object_unref(image);
}
