// SPDX-License-Identifier: MIT
// Probe run by hand on a machine with NVIDIA's toolkit (docs/hw/isa.md, "Checked against hardware"): nvcc -O2 -arch=sm_90 -o probe ptx-bitops.cu && ./probe
// Prints, for N inputs (a, b, c) from a fixed xorshift sequence plus edge
// values, the results of PTX integer bit instructions on this GPU.
#include <cstdio>
#include <cstdint>
#define N 8192
__device__ __host__ static uint32_t xs(uint32_t &x) { x ^= x << 13; x ^= x >> 17; x ^= x << 5; return x; }
enum { BFEU, BFES, BFI, PRMT0, PRMTF4E, PRMTB4E, PRMTRC8, PRMTECL, PRMTECR, PRMTRC16, SHFLC, SHFLW, SHFRC, SHFRW, CLZ, POPC, BREV, MULHIS, MULHIU, NOPS };
__global__ void k(const uint32_t *A, const uint32_t *B, const uint32_t *C, uint32_t *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    uint32_t a = A[i], b = B[i], c = C[i], d;
    uint32_t *o = out + (size_t)i * NOPS;
    asm("bfe.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); o[BFEU] = d;
    asm("bfe.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); o[BFES] = d;
    { uint32_t e = a ^ c; asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(d) : "r"(a), "r"(b), "r"(c), "r"(e)); o[BFI] = d; }
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); o[PRMT0] = d;
    asm("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); o[PRMTF4E] = d;
    asm("prmt.b32.b4e %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); o[PRMTB4E] = d;
    asm("prmt.b32.rc8 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); o[PRMTRC8] = d;
    asm("prmt.b32.ecl %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); o[PRMTECL] = d;
    asm("prmt.b32.ecr %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); o[PRMTECR] = d;
    asm("prmt.b32.rc16 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); o[PRMTRC16] = d;
    asm("shf.l.clamp.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); o[SHFLC] = d;
    asm("shf.l.wrap.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); o[SHFLW] = d;
    asm("shf.r.clamp.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); o[SHFRC] = d;
    asm("shf.r.wrap.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); o[SHFRW] = d;
    asm("clz.b32 %0, %1;" : "=r"(d) : "r"(a)); o[CLZ] = d;
    asm("popc.b32 %0, %1;" : "=r"(d) : "r"(a)); o[POPC] = d;
    asm("brev.b32 %0, %1;" : "=r"(d) : "r"(a)); o[BREV] = d;
    asm("mul.hi.s32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); o[MULHIS] = d;
    asm("mul.hi.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); o[MULHIU] = d;
}
int main()
{
    static uint32_t A[N], B[N], C[N], O[N * NOPS];
    uint32_t x = 12345;
    for (int i = 0; i < N; i++) {
        A[i] = xs(x); B[i] = xs(x); C[i] = xs(x);
        /* small positions and lengths most of the time, any value often */
        if (i % 4 != 3) { B[i] &= (i & 1) ? 0x3f : 0xff; C[i] &= (i & 2) ? 0x3f : 0x1ff; }
        if (i < 64) { A[i] = i & 1 ? 0 : 0xffffffffu; if (i & 4) A[i] = 0x80000000u; B[i] = i; C[i] = 64 - i; }
    }
    uint32_t *dA, *dB, *dC, *dO;
    cudaMalloc(&dA, sizeof A); cudaMalloc(&dB, sizeof B); cudaMalloc(&dC, sizeof C); cudaMalloc(&dO, sizeof O);
    cudaMemcpy(dA, A, sizeof A, cudaMemcpyHostToDevice); cudaMemcpy(dB, B, sizeof B, cudaMemcpyHostToDevice); cudaMemcpy(dC, C, sizeof C, cudaMemcpyHostToDevice);
    k<<<N / 256, 256>>>(dA, dB, dC, dO);
    cudaError_t e = cudaMemcpy(O, dO, sizeof O, cudaMemcpyDeviceToHost);
    if (e) { fprintf(stderr, "%s\n", cudaGetErrorString(e)); return 1; }
    for (int i = 0; i < N; i++) {
        printf("%08x %08x %08x", A[i], B[i], C[i]);
        for (int j = 0; j < NOPS; j++) printf(" %08x", O[i * NOPS + j]);
        printf("\n");
    }
    return 0;
}
