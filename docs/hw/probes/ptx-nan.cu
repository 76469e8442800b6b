// SPDX-License-Identifier: MIT
// Probe run by hand on a machine with NVIDIA's toolkit (docs/hw/isa.md, "Checked against hardware"): nvcc -O2 -arch=sm_90 -o nan ptx-nan.cu && ./nan
#include <cstdio>
#include <cstdint>
#include <cstring>
__global__ void k(const unsigned long long *in, unsigned long long *out)
{
    double a, b, inf;
    unsigned long long x = in[0], y = in[1], i = in[2];
    memcpy(&a, &x, 8); memcpy(&b, &y, 8); memcpy(&inf, &i, 8);
    double r[6];
    asm("add.rn.f64 %0, %1, %2;" : "=d"(r[0]) : "d"(a), "d"(b));     // NaN a (quiet payload) + NaN b (signaling payload)
    asm("add.rn.f64 %0, %1, %2;" : "=d"(r[1]) : "d"(b), "d"(1.0));   // sNaN + 1
    asm("sub.rn.f64 %0, %1, %2;" : "=d"(r[2]) : "d"(inf), "d"(inf)); // inf - inf
    asm("min.f64 %0, %1, %2;" : "=d"(r[3]) : "d"(a), "d"(1.0));
    asm("fma.rn.f64 %0, %1, %2, %3;" : "=d"(r[4]) : "d"(1.0), "d"(2.0), "d"(b));
    asm("cvt.rn.f32.f64 %0, %1;" : "=f"(*(float *)&r[5]) : "d"(a));
    for (int j = 0; j < 6; j++) memcpy(&out[j], &r[j], 8);
    float fa, fb, fr[3]; unsigned int qa = 0x7fc12345u, sb = 0x7f812345u;
    memcpy(&fa, &qa, 4); memcpy(&fb, &sb, 4);
    asm("add.rn.f32 %0, %1, %2;" : "=f"(fr[0]) : "f"(fa), "f"(fb));
    asm("add.rn.f32 %0, %1, %2;" : "=f"(fr[1]) : "f"(fb), "f"(1.0f));
    asm("sub.rn.f32 %0, %1, %2;" : "=f"(fr[2]) : "f"(__int_as_float(0x7f800000)), "f"(__int_as_float(0x7f800000)));
    for (int j = 0; j < 3; j++) { unsigned int u; memcpy(&u, &fr[j], 4); out[6 + j] = u; }
}
int main()
{
    unsigned long long h[3] = { 0x7ff8000000012345ull, 0x7ff0000000067890ull, 0x7ff0000000000000ull }, o[9];
    unsigned long long *di, *dout;
    cudaMalloc(&di, sizeof h); cudaMalloc(&dout, sizeof o);
    cudaMemcpy(di, h, sizeof h, cudaMemcpyHostToDevice);
    k<<<1, 1>>>(di, dout);
    cudaMemcpy(o, dout, sizeof o, cudaMemcpyDeviceToHost);
    const char *n[9] = { "f64 qNaN+sNaN", "f64 sNaN+1", "f64 inf-inf", "f64 min(qNaN,1)", "f64 fma(1,2,sNaN)", "cvt.f32.f64 qNaN", "f32 qNaN+sNaN", "f32 sNaN+1", "f32 inf-inf" };
    for (int j = 0; j < 9; j++) printf("%-20s 0x%016llx\n", n[j], o[j]);
    return 0;
}
