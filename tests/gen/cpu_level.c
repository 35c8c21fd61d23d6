/* What this CPU offers, read from CPUID and XGETBV directly (not through the compiler's
 * __builtin_cpu_supports, which the code under test uses): prints "x86-64-v3" when it has every
 * feature the psABI lists for that level and the OS saves the AVX registers, else "baseline".
 * The test reads CPUID rather than /proc/cpuinfo's flags because kernels may leave a flag out
 * while the CPU has it (LZCNT's "abm" is missing on some virtual machines). */
#include <cpuid.h>
#include <stdio.h>

static int bit(unsigned value, int n) { return (value >> n) & 1u; }

static unsigned long long xcr0(void) {
    unsigned low, high;
    __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
    return ((unsigned long long)high << 32) | low;
}

int main(void) {
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return puts("baseline"), 0;
    const int fma = bit(ecx, 12), movbe = bit(ecx, 22), xsave = bit(ecx, 26), osxsave = bit(ecx, 27);
    const int avx = bit(ecx, 28), f16c = bit(ecx, 29);
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return puts("baseline"), 0;
    const int bmi1 = bit(ebx, 3), avx2 = bit(ebx, 5), bmi2 = bit(ebx, 8);
    if (!__get_cpuid(0x80000001, &eax, &ebx, &ecx, &edx)) return puts("baseline"), 0;
    const int lzcnt = bit(ecx, 5);
    const int os_saves_avx = osxsave && (xcr0() & 6) == 6; /* SSE and AVX state */
    const int v3 = fma && movbe && xsave && avx && f16c && bmi1 && avx2 && bmi2 && lzcnt && os_saves_avx;
    puts(v3 ? "x86-64-v3" : "baseline");
    return 0;
}
