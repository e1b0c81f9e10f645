/* Which vector instructions this processor runs, asked the way each system answers: the one place
 * the shim asks (scripts/check-portability keeps CPU probes here).
 *
 * GCC and clang's __builtin_cpu_supports reads __cpu_model, which compiler-rt (or libgcc) defines.
 * Apple's toolchain does not ship that symbol, so on an Intel Mac the call would not link; there the
 * kernel answers through sysctlbyname ("hw.optional.avx2_0", Apple's documented name for AVX2), as
 * Apple's "Determining instruction set characteristics" describes. Apple silicon and other processors
 * run the portable paths: the eight-lane kernels are x86-64 code. */
#include "warmcache_vips.h"

#if defined(__x86_64__) && defined(__APPLE__)
#include <sys/sysctl.h>

int
wc_cpu_wide(void)
{
    int value = 0;
    size_t size = sizeof value;
    return sysctlbyname("hw.optional.avx2_0", &value, &size, NULL, 0) == 0 && value != 0 ? 1 : 0;
}

#elif defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))

int
wc_cpu_wide(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") ? 1 : 0;
}

#else

int
wc_cpu_wide(void)
{
    return 0;
}

#endif
