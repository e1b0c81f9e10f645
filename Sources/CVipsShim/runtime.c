/* Process-wide libvips set-up: one-time initialisation, threads, cache, vector paths, errors. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <gmodule.h>
#include <pthread.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#elif defined(__APPLE__)
#include <malloc/malloc.h>
#endif
#include <vips/vips.h>
#include <vips/vector.h>
#include "warmcache_vips.h"

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_result = -1;
/* Where the used modules are loaded from (NULL: libvips loaded its own), and whether they are. */
static char *module_folder_in_use = NULL;
static pthread_mutex_t module_lock = PTHREAD_MUTEX_INITIALIZER;
static int modules_loaded = 0;

/* Swallows libvips warnings ("VIPS" log domain): broken inputs are reported as errors instead. */
static void
silent_log(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data)
{
    (void) domain; (void) level; (void) message; (void) data;
}

/* The libvips modules the accepted input and output formats need: HEIF (HEIC, AVIF) and JPEG XL.
 * libvips loads every module it finds at start (also ImageMagick, PDF and OpenSlide loaders, which
 * the engine refuses anyway). These two are loaded the first time something needs them
 * (wc_vips_load_modules): a warm of JPEGs, PNGs and WebPs starts each of its processes ~15 ms
 * faster (libvips' start: 14-17 ms -> ~1 ms) and never maps those libraries. Keep in step with
 * InputLoaders and the encoder table. */
static const char *const used_modules[] = { "vips-heif", "vips-jxl" };
enum { used_module_count = sizeof used_modules / sizeof used_modules[0] };
/* For each used module: the file found for it (NULL: none in the folder) and whether it loaded, or
 * why not (g_module_error's words). Written once, under module_lock, by wc_vips_load_modules. */
static char *module_files[used_module_count];
static char *module_errors[used_module_count];
static int module_loaded[used_module_count];

/* The folder of the modules of the libvips this process loaded (e.g.
 * /usr/lib/x86_64-linux-gnu/vips-modules-8.14), or NULL if there is none: then libvips was built
 * without modules, or lives elsewhere, and is left to load what it finds. Free with g_free. */
static char *
module_folder(void)
{
    Dl_info info;
    if (!dladdr((void *) vips_init, &info) || !info.dli_fname)
        return NULL;
    char *library_folder = g_path_get_dirname(info.dli_fname);
    char *folder = g_strdup_printf("%s/vips-modules-%d.%d", library_folder, vips_version(0), vips_version(1));
    g_free(library_folder);
    if (!g_file_test(folder, G_FILE_TEST_IS_DIR)) {
        g_free(folder);
        return NULL;
    }
    return folder;
}

static void
init_once_body(void)
{
    /* libvips loads the modules under $VIPSHOME/lib (or its own libdir): for its start, VIPSHOME
     * names a folder with none, and is restored after; the used modules are loaded by path when
     * first needed (wc_vips_load_modules). */
    char *modules = module_folder();
    char *home = NULL;
    gboolean had_home = FALSE;
    if (modules) {
        const char *current = g_getenv("VIPSHOME");
        had_home = current != NULL;
        home = g_strdup(current);
        char *nowhere = g_strdup_printf("%s/no-modules", modules);
        g_setenv("VIPSHOME", nowhere, TRUE);
        g_free(nowhere);
    }
    init_result = VIPS_INIT("warm-cache") == 0 ? 0 : -1;
    if (modules) {
        if (had_home)
            g_setenv("VIPSHOME", home, TRUE);
        else
            g_unsetenv("VIPSHOME");
        g_free(home);
        module_folder_in_use = modules;
    } else {
        modules_loaded = 1;  /* libvips loaded what it found (or has no modules) */
    }
    if (init_result == 0)
        g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING, silent_log, NULL);
}

const char *
wc_vips_module_folder(void)
{
    return module_folder_in_use;
}

/* The file of module `name` in `folder`, as libvips itself would load it, or NULL (free with wc_free).
 * libvips 8.15 and later load every file of the folder, whatever its suffix (Meson builds them as
 * .so on Linux and .dylib on macOS); 8.14 loaded only names ending in glib's module suffix, which
 * is "so" on every Unix, macOS too. So the module is any file named `<name>.<suffix>`, with no
 * suffix assumed: glib's own is wrong for the .dylib files of libvips 8.15+ on macOS. */
char *
wc_vips_find_module(const char *folder, const char *name)
{
    GDir *dir = g_dir_open(folder, 0, NULL);
    if (!dir)
        return NULL;
    char *prefix = g_strdup_printf("%s.", name);
    char *found = NULL;
    const char *entry;
    while (!found && (entry = g_dir_read_name(dir))) {
        const char *suffix = entry + strlen(prefix);
        if (g_str_has_prefix(entry, prefix) && *suffix && !strchr(suffix, '.'))
            found = g_build_filename(folder, entry, NULL);
    }
    g_free(prefix);
    g_dir_close(dir);
    return found;
}

int
wc_vips_load_modules(void)
{
    int loaded_now = 0;
    pthread_mutex_lock(&module_lock);
    if (!modules_loaded && init_result == 0) {
        modules_loaded = 1;
        loaded_now = 1;
        for (int i = 0; i < used_module_count; i++) {
            module_files[i] = wc_vips_find_module(module_folder_in_use, used_modules[i]);
            if (!module_files[i])
                continue;
            /* Opening runs the module's g_module_check_init, which registers its operations. */
            GModule *module = g_module_open(module_files[i], G_MODULE_BIND_LAZY);
            if (module) {
                g_module_make_resident(module);
                module_loaded[i] = 1;
            } else {
                module_errors[i] = g_strdup(g_module_error());
            }
        }
    }
    pthread_mutex_unlock(&module_lock);
    return loaded_now;
}

int
wc_vips_module_count(void)
{
    return used_module_count;
}

const char *
wc_vips_module_name(int index)
{
    return index >= 0 && index < used_module_count ? used_modules[index] : NULL;
}

int
wc_vips_module_status(int index, const char **file, const char **error)
{
    wc_vips_load_modules();
    pthread_mutex_lock(&module_lock);
    int valid = index >= 0 && index < used_module_count;
    int loaded = valid && module_loaded[index];
    *file = valid ? module_files[index] : NULL;
    *error = valid ? module_errors[index] : NULL;
    pthread_mutex_unlock(&module_lock);
    return loaded;
}

int
wc_vips_modules_loaded(void)
{
    pthread_mutex_lock(&module_lock);
    int loaded = modules_loaded;
    pthread_mutex_unlock(&module_lock);
    return loaded;
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
    if (vips_type_find("VipsOperation", nickname) != 0)
        return 1;
    /* Perhaps one of the modules has it: once they are loaded (by this call, or by another
     * thread's, which this one waits for), look again. */
    wc_vips_load_modules();
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

void
wc_release_freed_memory(void)
{
#if defined(__GLIBC__)
    malloc_trim(0);
#elif defined(__APPLE__)
    malloc_zone_pressure_relief(NULL, 0);
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
