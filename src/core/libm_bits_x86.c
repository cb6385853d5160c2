// SPDX-License-Identifier: MIT
// The sine and cosine of 8 doubles at once with the bits of x86-64 glibc's sin and cos (libm_bits.c
// keeps the table of these kernels; its portable entry calls libm). On x86-64 glibc with FMA and
// AVX2, sin, cos and sincos are glibc's __sin_fma/__cos_fma/__sincos_fma: the IBM Accurate
// Mathematical Library's s_sin.c compiled with FMA contraction. Below 105414350 it reduces x to
// a + da (|a| < 0.856) with pi/2 in double-double parts, then evaluates a short polynomial
// (|a| < 0.126) or a table of sin/cos at k/128 plus polynomials of the remainder. This file runs
// those steps in vectors with the same operations, the same fused multiply-adds and the same
// constants, so that each lane is libm's result; other lanes (larger |x|, inf, NaN) call libm. A
// table is used only where a self-check against the running libm agrees (another libm, or glibc's
// non-FMA variants, leave every lane to libm).
#include "core/libm_bits.h"  // first: its <math.h> defines __GLIBC__

#include "core/simd.h"

#ifdef NE_SIMD_X86
#include <immintrin.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

// sin and cos of k/128, k = 0..109, as double-double pairs {sin hi, sin lo, cos hi, cos lo}: the
// numbers of glibc's __sincostab (sincostab.c), which its sin and cos read. 18 of the low parts are
// an ulp off the correctly rounded ones, so the table is glibc's, not recomputed.
// clang-format off
static const double sincos_table[440] = {
    0x0.0p+0, 0x0.0p+0, 0x1.0000000000000p+0, 0x0.0p+0,
    0x1.fffeaaaaeeeefp-8, -0x1.e45e2ec67b77cp-62, 0x1.fffc000155552p-1, 0x1.f4a01a0196daep-55,
    0x1.fffaaaaeeeed5p-7, -0x1.2ab639a9f0777p-63, 0x1.fff000155549fp-1, 0x1.28a28a03a5ef3p-55,
    0x1.7ff7001033255p-6, 0x1.efe2b51527336p-64, 0x1.ffdc006bff7e6p-1, 0x1.ae6dae86977bdp-55,
    0x1.ffeaaaeeee86fp-6, -0x1.cd406fb224ae2p-60, 0x1.ffc00155527d3p-1, -0x1.3b54492d89b5bp-55,
    0x1.3feb2b12d45d5p-5, 0x1.4ec54203d1c11p-60, 0x1.ff9c03414a7bap-1, 0x1.991f4be6c59bfp-57,
    0x1.7fdc01032fba9p-5, -0x1.599bdf46e997ap-59, 0x1.ff7006bfdf99fp-1, -0x1.8b3b560648d5fp-56,
    0x1.bfc6d78586dacp-5, 0x1.8e4fd03dbf236p-62, 0x1.ff3c0c8103a31p-1, 0x1.4856dbddc0e66p-56,
    0x1.ffaaaeeed4edbp-5, -0x1.2d16d32684b69p-59, 0x1.ff0015549f4d3p-1, 0x1.328387b99426fp-55,
    0x1.1fc343d808befp-4, -0x1.f3d32e6f3be4fp-58, 0x1.febc222a8ef9fp-1, 0x1.7934934f54c77p-58,
    0x1.3facb12d1755bp-4, -0x1.921915299468cp-58, 0x1.fe7034129ef6fp-1, -0x1.cbf4337c96f97p-57,
    0x1.5f911fd10b737p-4, -0x1.0184f02be9102p-58, 0x1.fe1c4c3c873ebp-1, -0x1.5a9c9057c4a02p-60,
    0x1.7f701032550e4p-4, 0x1.afc2d1800501ap-60, 0x1.fdc06bf7e6b9bp-1, 0x1.31902b535f8dbp-55,
    0x1.9f4902d55d1f9p-4, 0x1.2696d7eac1dc1p-58, 0x1.fd5c94b43e000p-1, -0x1.2e768cb4f92f9p-57,
    0x1.bf1b78568391dp-4, 0x1.e91841dea4cc8p-58, 0x1.fcf0c800e99b1p-1, 0x1.ea3d786d186acp-57,
    0x1.dee6f16c1cce6p-4, -0x1.50f8e2fb71673p-59, 0x1.fc7d078d1bc88p-1, 0x1.075d2447db685p-55,
    0x1.feaaeee86ee36p-4, -0x1.afcb2bcc6f03bp-59, 0x1.fc015527d5bd3p-1, 0x1.b68f35094efb8p-55,
    0x1.0f3378ddd71d1p-3, 0x1.d8468724f0f9ep-57, 0x1.fb7db2bfe0695p-1, 0x1.21dadf4f65ab1p-55,
    0x1.1f0d3d7afceafp-3, -0x1.6ef95099769a5p-57, 0x1.faf22263c4bd3p-1, -0x1.52ace133a2769p-58,
    0x1.2ee285e4ab88fp-3, -0x1.e4d0f05dee058p-57, 0x1.fa5ea641c36f2p-1, 0x1.04da6ed17cc7cp-59,
    0x1.3eb312c5d66cbp-3, 0x1.47d666b66cb91p-57, 0x1.f9c340a7cc428p-1, 0x1.c5b6b063b7462p-55,
    0x1.4e7ea4dc5f27bp-3, 0x1.949db2ac072fcp-58, 0x1.f91ff40374d01p-1, -0x1.7d03f4d3a9e4cp-57,
    0x1.5e44fcfa126f3p-3, -0x1.6f443063f89b6p-57, 0x1.f874c2e1eecf6p-1, -0x1.c6514e1332b16p-55,
    0x1.6e05dc05a4d4cp-3, -0x1.32c5c8b81c940p-66, 0x1.f7c1afeffde24p-1, -0x1.8f55bc47540b1p-56,
    0x1.7dc102fbaf2b5p-3, 0x1.5ab50e23c97c3p-59, 0x1.f706bdf9ece1cp-1, -0x1.698c80c36dcb4p-55,
    0x1.8d7632efaa944p-3, -0x1.20fa262cbb953p-57, 0x1.f643efeb82acdp-1, 0x1.6b00ac1fe28acp-56,
    0x1.9d252d0cec312p-3, 0x1.9c43d80b1137dp-58, 0x1.f57948cff6797p-1, 0x1.e3a0d3e03b1d5p-57,
    0x1.accdb297a0765p-3, -0x1.9883b57d6cdebp-58, 0x1.f4a6cbd1e3a79p-1, 0x1.13df0edaebb57p-55,
    0x1.bc6f84edc6199p-3, 0x1.9c1a56a7b0cabp-57, 0x1.f3cc7c3b3d16ep-1, -0x1.21a3ad28a3494p-57,
    0x1.cc0a6588289a3p-3, -0x1.868d09bc87c6bp-57, 0x1.f2ea5d753ffedp-1, 0x1.cc4215f56d583p-55,
    0x1.db9e15fb5a5d0p-3, -0x1.32e20d6cc6fc2p-57, 0x1.f20073086649fp-1, 0x1.b940416c1984bp-56,
    0x1.eb2a57f8ae5a3p-3, -0x1.0be06af572cebp-57, 0x1.f10ec09c5873bp-1, 0x1.d9072762c1283p-55,
    0x1.faaeed4f31577p-3, -0x1.15d88508e32b8p-57, 0x1.f01549f7deea1p-1, 0x1.d3c1e99e5cafdp-55,
    0x1.0515cbf65155cp-2, -0x1.9b8c29dfd8ec8p-56, 0x1.ef141300d2f26p-1, -0x1.2aa1b08ded372p-55,
    0x1.0cd00cef36436p-2, -0x1.9fb0a0c93e2b5p-56, 0x1.ee0b1fbc0f11cp-1, -0x1.bfd2380bbc3b1p-59,
    0x1.14861aa94ddebp-2, -0x1.be881b5b615a4p-57, 0x1.ecfa744d5efa1p-1, -0x1.56d0a4af541d0p-58,
    0x1.1c37d64c6b876p-2, 0x1.46076fe0dcff5p-56, 0x1.ebe214f76efa8p-1, -0x1.02f9f12ba543ep-55,
    0x1.23e52111aaf36p-2, -0x1.4f080334eff18p-56, 0x1.eac2061bbaf4fp-1, 0x1.2c1d53e94658dp-57,
    0x1.2b8ddc43eb49fp-2, 0x1.1553899f2d807p-57, 0x1.e99a4c3a7cd83p-1, -0x1.2264b1bc53ce8p-55,
    0x1.3331e94049f87p-2, 0x1.e0cb6b40c302cp-56, 0x1.e86aebf29a9edp-1, 0x1.9397afdbb58a7p-55,
    0x1.3ad129769d3d8p-2, 0x1.03d5504878398p-63, 0x1.e733ea0193d40p-1, -0x1.6428b3546ce13p-55,
    0x1.426b7e69ee697p-2, -0x1.f09c75705c59fp-56, 0x1.e5f54b436e9d0p-1, 0x1.7eb0fd02fc8bcp-55,
    0x1.4a00c9b0f3d20p-2, 0x1.823ba6bb08eadp-56, 0x1.e4af14b2a449cp-1, -0x1.68ca02e8a6833p-55,
    0x1.5190ecf68a77ap-2, 0x1.b357155eef0f3p-56, 0x1.e3614b680d6a5p-1, -0x1.27793aa015237p-56,
    0x1.591bc9fa2f597p-2, 0x1.7c74bac3fe0cbp-57, 0x1.e20bf49acd6c1p-1, -0x1.660aec7ef636cp-58,
    0x1.60a1429078775p-2, 0x1.b1fd80ba89133p-58, 0x1.e0af15a03dbcep-1, 0x1.fe8e702771ae6p-58,
    0x1.682138a38d7f7p-2, -0x1.d889202444aadp-56, 0x1.df4ab3ebd875ep-1, -0x1.e2d8a7e6736c4p-55,
    0x1.6f9b8e33a0255p-2, 0x1.42bc14ee9da0dp-56, 0x1.ddded50f228d6p-1, -0x1.e80c8d42ba2bfp-57,
    0x1.7710255764214p-2, -0x1.6ead7314bb6cep-57, 0x1.dc6b7eb995912p-1, 0x1.4b364776dcd35p-58,
    0x1.7e7ee03c86d4ep-2, -0x1.b63bcdabf5af2p-56, 0x1.daf0b6b888e83p-1, 0x1.a249e2b5e5ceap-55,
    0x1.85e7a12826949p-2, 0x1.8a40e9b5face0p-56, 0x1.d96e82f71a9dcp-1, 0x1.ff61bd5d2039dp-55,
    0x1.8d4a4a774992fp-2, 0x1.44a02ea766326p-56, 0x1.d7e4e97e17b4ap-1, -0x1.3b770352bed94p-57,
    0x1.94a6be9f546c5p-2, -0x1.69ce13e683f58p-56, 0x1.d653f073e4040p-1, -0x1.76236434bec37p-55,
    0x1.9bfce02e80510p-2, 0x1.09e39a320b0a4p-56, 0x1.d4bb9e1c619e0p-1, 0x1.f34bb77858f61p-55,
    0x1.a34c91cc50ccap-2, -0x1.a310e3b50cecdp-58, 0x1.d31bf8d8d7c06p-1, 0x1.e60dd3089cbddp-56,
    0x1.aa95b63a09277p-2, -0x1.6293eb13c0381p-57, 0x1.d1750727d94f0p-1, 0x1.0d52b1ec1a48ep-55,
    0x1.b1d8305321617p-2, -0x1.ae242cb99f519p-56, 0x1.cfc6cfa52ad9fp-1, 0x1.8b5b5508f2a0dp-55,
    0x1.b913e30dbac43p-2, -0x1.e38ad2f6c3ff1p-56, 0x1.ce115909a82e5p-1, 0x1.1f139bb31109ap-55,
    0x1.c048b17b140a3p-2, 0x1.19fe6757e9fa7p-57, 0x1.cc54aa2b2972ep-1, 0x1.4ee162ba83a98p-57,
    0x1.c7767ec7fd19ep-2, -0x1.eb14d1a3d5826p-58, 0x1.ca90c9fc67d0bp-1, -0x1.46a81485e3462p-57,
    0x1.ce9d2e3d4a51fp-2, -0x1.2fc8a12dae298p-57, 0x1.c8c5bf8ce1a84p-1, 0x1.ab3d1a1590123p-56,
    0x1.d5bca34047661p-2, 0x1.28a44a75fc29cp-56, 0x1.c6f39208be53bp-1, -0x1.741dbfbaadb42p-55,
    0x1.dcd4c15329c9ap-2, 0x1.0d4c6e171fd9ap-56, 0x1.c51a48b8b175ep-1, -0x1.1bbb43b9aa880p-57,
    0x1.e3e56c1582a69p-2, -0x1.0a4821099f88fp-58, 0x1.c339eb01ddd81p-1, -0x1.caaf5ee82c5c0p-55,
    0x1.eaee8744b05f0p-2, -0x1.789b43c9b027dp-58, 0x1.c1528065b7d50p-1, -0x1.892111312e828p-55,
    0x1.f1eff6bc4f97bp-2, 0x1.17212f8a7525cp-56, 0x1.bf641081e7536p-1, 0x1.b7bd71628a9a1p-55,
    0x1.f8e99e76abc97p-2, 0x1.9d950af2d00a3p-58, 0x1.bd6ea310294f5p-1, 0x1.31bbcc88c109dp-56,
    0x1.ffdb628d2f57ap-2, 0x1.f4a992e905b6ap-57, 0x1.bb723fe630f32p-1, 0x1.72bd2452d0a39p-56,
    0x1.0362939c69955p-1, -0x1.2d8cd78397b01p-55, 0x1.b96eeef58840ep-1, 0x1.45a3cc78fade0p-58,
    0x1.06d3686946e5bp-1, 0x1.3f5ae4538ff1bp-55, 0x1.b764b84b704c2p-1, -0x1.f5848c21b389bp-55,
    0x1.0a4021e9e1001p-1, -0x1.6f643a13914f6p-55, 0x1.b553a410c104ep-1, 0x1.8ff7947027a16p-58,
    0x1.0da8b26b5672ep-1, -0x1.a58def0bee909p-55, 0x1.b33bba89c8948p-1, 0x1.ea6a51d1f6ca9p-55,
    0x1.110d0c4b69c3bp-1, 0x1.d918998809981p-55, 0x1.b11d04162a4c6p-1, 0x1.1dd561efbc0c2p-56,
    0x1.146d21f8b7f82p-1, 0x1.bf9535e2739a8p-56, 0x1.aef78930bd275p-1, -0x1.f836279746f94p-56,
    0x1.17c8e5f2eedb0p-1, 0x1.35e57102e2488p-57, 0x1.accb526f69de5p-1, 0x1.8fb6a8dd6b6ccp-55,
    0x1.1b204acb02fddp-1, -0x1.f190c70cbb5ffp-58, 0x1.aa98688308913p-1, -0x1.b83d607cd5070p-63,
    0x1.1e7343236574cp-1, 0x1.22a3fa4f41d5ap-56, 0x1.a85ed4373e02dp-1, 0x1.9be06385ec792p-57,
    0x1.21c1c1b0394cfp-1, 0x1.e5b324b23aa31p-58, 0x1.a61e9e72586afp-1, 0x1.58330e2fd453fp-55,
    0x1.250bb93788bbbp-1, 0x1.ea3d02457bccep-56, 0x1.a3d7d0352bdcfp-1, -0x1.68dbaeca19669p-55,
    0x1.28511c917a067p-1, -0x1.01df1d9a16b70p-55, 0x1.a18a729aee445p-1, 0x1.95e25736c0358p-60,
    0x1.2b91dea88421ep-1, -0x1.fa371db216ab0p-55, 0x1.9f368ed912f85p-1, -0x1.1d200c5791606p-55,
    0x1.2ecdf279a3082p-1, 0x1.d3557e0e7e37ep-55, 0x1.9cdc2e3f25e5cp-1, 0x1.3f99112993f62p-55,
    0x1.32054b148bc4fp-1, 0x1.f6b42095a135bp-55, 0x1.9a7b5a36a6514p-1, 0x1.722cfcc9fa7a9p-55,
    0x1.3537db9be0367p-1, 0x1.b327e7af040f0p-57, 0x1.98141c42e1310p-1, 0x1.d1ff80488f08dp-55,
    0x1.386597456282bp-1, -0x1.10fada93b07a8p-56, 0x1.95a67e00cb1fdp-1, -0x1.0befda21f862dp-55,
    0x1.3b8e715a2840ap-1, -0x1.97653a7d2f07bp-56, 0x1.93328926d9e92p-1, -0x1.bb77003600cdap-55,
    0x1.3eb25d36cd53ap-1, -0x1.be570e1570fc0p-58, 0x1.90b84784ddaf7p-1, -0x1.0feb10ab93b87p-56,
    0x1.41d14e4ba6790p-1, 0x1.4608fd287ecf5p-55, 0x1.8e37c303d9ad1p-1, -0x1.463a4b53d4bf8p-57,
    0x1.44eb381cf386bp-1, -0x1.3ed6c1e6a5505p-55, 0x1.8bb105a5dc900p-1, 0x1.863e03e9474c1p-55,
    0x1.48000e431159fp-1, -0x1.b194a7463ed10p-55, 0x1.89241985d871fp-1, 0x1.c48d9c413ed84p-55,
    0x1.4b0fc46aab761p-1, 0x1.0da05738cc59ap-61, 0x1.869108d77a6c6p-1, 0x1.338ffe2bfe9ddp-56,
    0x1.4e1a4e54ed51bp-1, -0x1.a492f89b7c76ap-55, 0x1.83f7dde701ca0p-1, -0x1.152cf609bc6e8p-59,
    0x1.511f9fd7b351cp-1, -0x1.5c0e861c48831p-55, 0x1.8158a31916d5dp-1, -0x1.de8b90b8228dep-57,
    0x1.541facddbb724p-1, 0x1.232c28520d391p-56, 0x1.7eb362eaa1488p-1, 0x1.a1d65a4a5959fp-58,
    0x1.571a6966d59b3p-1, 0x1.c843b4d0fb198p-58, 0x1.7c0827f09e54fp-1, -0x1.c73d6d72aee68p-57,
    0x1.5a0fc98813a12p-1, -0x1.d82e2b7d4227bp-55, 0x1.7956fcd7f6543p-1, -0x1.ab276e9d45ae4p-55,
    0x1.5cffc16bf8f0dp-1, 0x1.96cb370eb578ap-55, 0x1.769fec655211fp-1, -0x1.827d5cf8c68c5p-57,
    0x1.5fea4552a9e57p-1, 0x1.0b6cef7ee20b7p-55, 0x1.73e30174efba1p-1, -0x1.5d3ae3d94ad5fp-57,
    0x1.62cf49921ac79p-1, -0x1.edd9855b6241ap-55, 0x1.712046fa77678p-1, 0x1.425b0a5029c81p-55,
    0x1.65aec2963e755p-1, 0x1.126f96b71053cp-55, 0x1.6e57c800cf55ep-1, 0x1.60286dedbd0a6p-55,
    0x1.6888a4e134b2fp-1, -0x1.6b7d37644d5e6p-55, 0x1.6b898fa9efb5dp-1, 0x1.15ac786ccf4b2p-56,
    0x1.6b5ce50b7821ap-1, -0x1.5d5158f702e0fp-57, 0x1.68b5a92eb6253p-1, -0x1.9a91ad985f89cp-55,
    0x1.6e2b77c40bde1p-1, -0x1.0e729857fad53p-56, 0x1.65dc1fdeb8cbap-1, -0x1.97c1b47337c77p-58,
    0x1.70f451d0a8c40p-1, 0x1.97ede3885770dp-57, 0x1.62fcff20191c7p-1, 0x1.d9143895756efp-57,
    0x1.73b7680dea578p-1, -0x1.2248306dc12a2p-56, 0x1.6018526f563dfp-1, 0x1.46ca5e0e432d0p-55,
    0x1.7674af6f7b524p-1, 0x1.e9d3f94ac84a8p-56, 0x1.5d2e255f1f17ap-1, 0x1.0314104c8892bp-55,
    0x1.792c1d0041d52p-1, -0x1.abf05eeb354ebp-55, 0x1.5a3e839824077p-1, 0x1.428aa2759be62p-55,
    0x1.7bdda5e28b3c2p-1, 0x1.ad1197ccd0393p-59, 0x1.574978d8e83f2p-1, 0x1.f4714af282d23p-55,
    0x1.7e893f5037959p-1, 0x1.0eefbaa650c4cp-55, 0x1.544f10f592ca5p-1, -0x1.e7ae8e6c7a62fp-55,
    0x1.812ede9ae4ba4p-1, -0x1.7830adf402ddap-55, 0x1.514f57d7bf3dap-1, 0x1.47a108073c259p-56,
};
// clang-format on

// s_sin.c's constants (usncs.h and do_sin/do_cos); cs2 = 0.5 once rounded to a double
static const double BIG = 0x1.8p45;  // 3 * 2^44: adding it rounds |x| to a multiple of 1/128
static const double SN3 = -0x1.5555555555515p-3, SN5 = 0x1.11110e829872fp-7;
static const double CS2 = 0.5, CS4 = -0x1.5555555555535p-5, CS6 = 0x1.6c16bedd9e239p-10;
static const double S1 = -0x1.5555555555555p-3, S2 = 0x1.1111111110ecep-7, S3 = -0x1.a01a019db08b8p-13;
static const double S4 = 0x1.71de27b9a7ed9p-19, S5 = -0x1.addffc2fcdf59p-26;
static const double HP0 = 0x1.921fb54442d18p0, HP1 = 0x1.1a62633145c07p-54;   // pi/2 as a double-double
static const double TOINT = 0x1.8p52, HPINV = 0x1.45f306dc9c883p-1;           // 2/pi
static const double MP1 = 0x1.921fb58000000p0, MP2 = -0x1.dde973c000000p-27;  // pi/2 in four parts
static const double PP3 = -0x1.cb3b398000000p-55, PP4 = -0x1.d747f23e32ed7p-83;
// the ranges of __sincos: |x| below each bound (the first 32 bits of a double compared as glibc does)
static const double TINY = 0x1p-27, TAYLOR_BELOW = 0.126, SMALL_BELOW = 0x1.b6p-1 /* 0.85546875 */;
static const double MEDIUM_BELOW = 0x1.368fdp1 /* 0x400368fd00000000: 2.426265 */;
static const double REDUCED_BELOW = 0x1.921fbp26 /* 0x419921fb00000000: 105414350 */;

// do_sin(a, da) and do_cos(a, da) of s_sin.c in the lanes of V, |a| < 0.8555. Every fma is one
// that gcc contracted in __sincos_fma (its disassembly), every separate multiply or add one it did
// not. One body for AVX2 (4 lanes) and AVX-512 (8 lanes): P(op) names the width's _pd intrinsic,
// TABLE loads each lane's {sn, ssn, cs, ccs} row as four columns, SIGN_IF(x, y, pred) is -0.0
// where x pred y (else +0.0), BLEND_IF(a, b, x, y, pred) is b where x pred y, else a.
#define DO_SIN_COS(name, attr, V, P, TABLE, SIGN_IF, BLEND_IF)                                         \
  attr static inline __attribute__((always_inline)) void name(V a, V da, V* sine, V* cosine) {         \
    const V neg0 = P(set1)(-0.0), zero = P(setzero)(), big = P(set1)(BIG);                             \
    V aa = P(andnot)(neg0, a);                                                                         \
    /* u = big + |a|; its low 32 bits are k = round(128 |a|); xr = |a| - k/128 */                      \
    V u = P(add)(big, aa);                                                                             \
    V xr = P(sub)(aa, P(sub)(u, big));                                                                 \
    V sn, ssn, cs, ccs;                                                                                \
    TABLE(u, sn, ssn, cs, ccs);                                                                        \
    V sn3 = P(set1)(SN3), sn5 = P(set1)(SN5);                                                          \
    V cs2 = P(set1)(CS2), cs4 = P(set1)(CS4), cs6 = P(set1)(CS6);                                      \
    /* do_sin, |a| < 0.126: a + ((POLYNOMIAL(xx) * a - 0.5 * da) * xx + da) */                         \
    V xx = P(mul)(a, a);                                                                               \
    V p = P(fmadd)(xx, P(set1)(S5), P(set1)(S4));                                                      \
    p = P(fmadd)(xx, p, P(set1)(S3));                                                                  \
    p = P(fmadd)(xx, p, P(set1)(S2));                                                                  \
    p = P(fmadd)(xx, p, P(set1)(S1));                                                                  \
    V half_da = P(mul)(da, P(set1)(0.5));                                                              \
    V taylor = P(add)(a, P(fmadd)(xx, P(fmsub)(p, a, half_da), da));                                   \
    /* do_sin from the table: dx = a <= 0 ? -da : da; */                                               \
    /* s = x + (dx + x*xx*(sn3 + xx*sn5)), c = x*dx + xx*(cs2 + xx*(cs4 + xx*cs6)), */                 \
    /* cor = (ssn + s*ccs - sn*c) + cs*s, result copysign(sn + cor, a) */                              \
    V dx = P(xor)(da, SIGN_IF(a, zero, _CMP_LE_OQ));                                                   \
    V rr = P(mul)(xr, xr);                                                                             \
    V s = P(add)(P(fmadd)(P(mul)(xr, rr), P(fmadd)(rr, sn5, sn3), dx), xr);                            \
    V c = P(fmadd)(dx, xr, P(mul)(rr, P(fmadd)(P(fmadd)(rr, cs6, cs4), rr, cs2)));                     \
    V cor = P(fmadd)(s, ccs, ssn);                                                                     \
    cor = P(fnmadd)(c, sn, cor);                                                                       \
    cor = P(fmadd)(s, cs, cor);                                                                        \
    V from_table = P(or)(P(andnot)(neg0, P(add)(sn, cor)), P(and)(neg0, a));                           \
    *sine = BLEND_IF(from_table, taylor, aa, P(set1)(TAYLOR_BELOW), _CMP_LT_OQ);                       \
    /* do_cos: dx = a < 0 ? -da : da, x = |a| - k/128 + dx; */                                         \
    /* s = x + x*xx*(sn3 + xx*sn5), c = xx*(cs2 + ...), cor = (ccs - s*ssn - cs*c) - sn*s, cs + cor */ \
    V xc = P(add)(xr, P(xor)(da, SIGN_IF(a, zero, _CMP_LT_OQ)));                                       \
    V cc = P(mul)(xc, xc);                                                                             \
    V sc = P(fmadd)(P(mul)(xc, cc), P(fmadd)(cc, sn5, sn3), xc);                                       \
    V t = P(fnmadd)(ssn, sc, ccs);                                                                     \
    t = P(fnmadd)(P(mul)(cc, P(fmadd)(P(fmadd)(cc, cs6, cs4), cc, cs2)), cs, t);                       \
    *cosine = P(add)(P(fnmadd)(sc, sn, t), cs);                                                        \
  }

#define PD256(op) _mm256_##op##_pd
#define SIGN_IF256(x, y, pred) _mm256_and_pd(_mm256_cmp_pd(x, y, pred), _mm256_set1_pd(-0.0))
#define BLEND_IF256(a, b, x, y, pred) _mm256_blendv_pd(a, b, _mm256_cmp_pd(x, y, pred))
// each lane's row is 32 bytes: load the 4 rows, transpose to columns
#define TABLE256(u, sn, ssn, cs, ccs)                                                               \
  do {                                                                                              \
    uint64_t ubits[4];                                                                              \
    _mm256_storeu_si256((__m256i*)ubits, _mm256_castpd_si256(u));                                   \
    __m256d r0 = _mm256_loadu_pd(sincos_table + 4 * (uint32_t)ubits[0]);                            \
    __m256d r1 = _mm256_loadu_pd(sincos_table + 4 * (uint32_t)ubits[1]);                            \
    __m256d r2 = _mm256_loadu_pd(sincos_table + 4 * (uint32_t)ubits[2]);                            \
    __m256d r3 = _mm256_loadu_pd(sincos_table + 4 * (uint32_t)ubits[3]);                            \
    __m256d lo01 = _mm256_unpacklo_pd(r0, r1), hi01 = _mm256_unpackhi_pd(r0, r1);                   \
    __m256d lo23 = _mm256_unpacklo_pd(r2, r3), hi23 = _mm256_unpackhi_pd(r2, r3);                   \
    sn = _mm256_permute2f128_pd(lo01, lo23, 0x20), cs = _mm256_permute2f128_pd(lo01, lo23, 0x31);   \
    ssn = _mm256_permute2f128_pd(hi01, hi23, 0x20), ccs = _mm256_permute2f128_pd(hi01, hi23, 0x31); \
  } while (0)
DO_SIN_COS(do_sin_cos4, NE_TARGET_AVX2, __m256d, PD256, TABLE256, SIGN_IF256, BLEND_IF256)

#define PD512(op) _mm512_##op##_pd
#define SIGN_IF512(x, y, pred) _mm512_maskz_mov_pd(_mm512_cmp_pd_mask(x, y, pred), _mm512_set1_pd(-0.0))
#define BLEND_IF512(a, b, x, y, pred) _mm512_mask_blend_pd(_mm512_cmp_pd_mask(x, y, pred), a, b)
// the 8 rows' columns gathered (k = the low 32 bits of u, row k at 4 k)
#define TABLE512(u, sn, ssn, cs, ccs)                                                                            \
  do {                                                                                                           \
    __m512i row = _mm512_slli_epi64(_mm512_and_si512(_mm512_castpd_si512(u), _mm512_set1_epi64(0xffffffff)), 2); \
    sn = _mm512_i64gather_pd(row, sincos_table, 8), ssn = _mm512_i64gather_pd(row, sincos_table + 1, 8);         \
    cs = _mm512_i64gather_pd(row, sincos_table + 2, 8), ccs = _mm512_i64gather_pd(row, sincos_table + 3, 8);     \
  } while (0)
DO_SIN_COS(do_sin_cos8, NE_TARGET_AVX512, __m512d, PD512, TABLE512, SIGN_IF512, BLEND_IF512)

// __sincos of 8 lanes at once when every |x| < 0.855 (CartPole's pole angles always are): a = x,
// da = 0, sincos4's first case in one AVX-512 pass instead of two AVX2 ones (a CartPole ES run to
// 475 ~8% faster on an Intel Xeon). Returns 0, writing nothing, when some lane is larger or NaN.
NE_TARGET_AVX512 static int sincos8_small(const double* xp, double* sp, double* cp) {
  __m512d x = _mm512_loadu_pd(xp), ax = _mm512_andnot_pd(_mm512_set1_pd(-0.0), x);
  if (_mm512_cmp_pd_mask(ax, _mm512_set1_pd(SMALL_BELOW), _CMP_LT_OQ) != 0xff) return 0;  // NaN: not small
  __mmask8 tiny = _mm512_cmp_pd_mask(ax, _mm512_set1_pd(TINY), _CMP_LT_OQ);
  __m512d sd, cd;
  do_sin_cos8(x, _mm512_setzero_pd(), &sd, &cd);
  // |x| < 2^-27: sin x = x, cos x = 1
  _mm512_storeu_pd(sp, _mm512_mask_blend_pd(tiny, sd, x));
  _mm512_storeu_pd(cp, _mm512_mask_blend_pd(tiny, cd, _mm512_set1_pd(1.0)));
  return 1;
}

// __sincos of 4 lanes with |x| < 105414350 (other lanes: 0 here, flagged in *outside for libm)
NE_TARGET_AVX2 static void sincos4(const double* xp, double* sp, double* cp, int* outside) {
  const __m256d neg0 = _mm256_set1_pd(-0.0), zero = _mm256_setzero_pd();
  __m256d x = _mm256_loadu_pd(xp);
  __m256d ax = _mm256_andnot_pd(neg0, x);
  __m256d inside = _mm256_cmp_pd(ax, _mm256_set1_pd(REDUCED_BELOW), _CMP_LT_OQ);  // false for NaN
  *outside = ~_mm256_movemask_pd(inside) & 0xf;
  x = _mm256_and_pd(x, inside);
  ax = _mm256_and_pd(ax, inside);
  __m256d small = _mm256_cmp_pd(ax, _mm256_set1_pd(SMALL_BELOW), _CMP_LT_OQ);
  __m256d tiny = _mm256_cmp_pd(ax, _mm256_set1_pd(TINY), _CMP_LT_OQ);
  __m256d sd, cd;                          // do_sin(a, da), do_cos(a, da)
  if (_mm256_movemask_pd(small) == 0xf) {  // all |x| < 0.855 (CartPole's angles): a = x, da = 0
    do_sin_cos4(x, zero, &sd, &cd);
    _mm256_storeu_pd(sp, _mm256_blendv_pd(sd, x, tiny));
    _mm256_storeu_pd(cp, _mm256_blendv_pd(cd, _mm256_set1_pd(1.0), tiny));
    return;
  }
  __m256d medium = _mm256_cmp_pd(ax, _mm256_set1_pd(MEDIUM_BELOW), _CMP_LT_OQ);  // or small
  // medium: y = hp0 - |x|, a = y + hp1, da = (y - a) + hp1; sin = copysign(do_cos, x), cos = do_sin
  __m256d hp1 = _mm256_set1_pd(HP1), y = _mm256_sub_pd(_mm256_set1_pd(HP0), ax);
  __m256d a_medium = _mm256_add_pd(y, hp1), da_medium = _mm256_add_pd(_mm256_sub_pd(y, a_medium), hp1);
  // reduce_sincos: t = x*hpinv + toint, xn = t - toint, n = t's low bits & 3,
  // y = (x - xn*mp1) - xn*mp2; t2 = y - xn*pp3, db = (y - t2) - xn*pp3; b = t2 - xn*pp4,
  // db += (t2 - b) - xn*pp4; a, da = b, db, negated when n is 1 or 2
  __m256d toint = _mm256_set1_pd(TOINT), pp3 = _mm256_set1_pd(PP3), pp4 = _mm256_set1_pd(PP4);
  __m256d tq = _mm256_fmadd_pd(x, _mm256_set1_pd(HPINV), toint);
  __m256d xn = _mm256_sub_pd(tq, toint);
  __m256d yr = _mm256_fnmadd_pd(xn, _mm256_set1_pd(MP2), _mm256_fnmadd_pd(xn, _mm256_set1_pd(MP1), x));
  __m256d t2 = _mm256_fnmadd_pd(xn, pp3, yr);
  __m256d db = _mm256_fnmadd_pd(xn, pp3, _mm256_sub_pd(yr, t2));
  __m256d b = _mm256_fnmadd_pd(xn, pp4, t2);
  db = _mm256_add_pd(db, _mm256_fnmadd_pd(xn, pp4, _mm256_sub_pd(t2, b)));
  __m256i n = _mm256_and_si256(_mm256_castpd_si256(tq), _mm256_set1_epi64x(3));
  __m256d n1 = _mm256_castsi256_pd(_mm256_cmpeq_epi64(n, _mm256_set1_epi64x(1)));
  __m256d n2 = _mm256_castsi256_pd(_mm256_cmpeq_epi64(n, _mm256_set1_epi64x(2)));
  __m256d n3 = _mm256_castsi256_pd(_mm256_cmpeq_epi64(n, _mm256_set1_epi64x(3)));
  __m256d flip = _mm256_and_pd(_mm256_or_pd(n1, n2), neg0);
  __m256d a = _mm256_blendv_pd(_mm256_xor_pd(b, flip), a_medium, medium);
  __m256d da = _mm256_blendv_pd(_mm256_xor_pd(db, flip), da_medium, medium);
  a = _mm256_blendv_pd(a, x, small);
  da = _mm256_blendv_pd(da, zero, small);

  do_sin_cos4(a, da, &sd, &cd);
  // reduced: n odd swaps the two, n & 2 negates the one do_cos gave
  __m256d odd = _mm256_or_pd(n1, n3);
  __m256d cd_signed = _mm256_xor_pd(cd, _mm256_and_pd(_mm256_or_pd(n2, n3), neg0));
  __m256d sine = _mm256_blendv_pd(sd, cd_signed, odd), cosine = _mm256_blendv_pd(cd_signed, sd, odd);
  __m256d medium_only = _mm256_andnot_pd(small, medium);
  sine = _mm256_blendv_pd(sine, _mm256_or_pd(_mm256_andnot_pd(neg0, cd), _mm256_and_pd(neg0, x)), medium_only);
  cosine = _mm256_blendv_pd(cosine, sd, medium_only);
  sine = _mm256_blendv_pd(sine, sd, small);
  cosine = _mm256_blendv_pd(cosine, cd, small);
  // |x| < 2^-27: sin x = x, cos x = 1
  _mm256_storeu_pd(sp, _mm256_blendv_pd(sine, x, tiny));
  _mm256_storeu_pd(cp, _mm256_blendv_pd(cosine, _mm256_set1_pd(1.0), tiny));
}

static void sincos8_fma(const double* x, double* s, double* c) {
  int outside[2];
  sincos4(x, s, c, &outside[0]);
  sincos4(x + 4, s + 4, c + 4, &outside[1]);
  for (int h = 0; h < 2; h++)
    for (unsigned m = (unsigned)outside[h]; m; m &= m - 1) {
      int k = 4 * h + __builtin_ctz(m);
      s[k] = sin(x[k]), c[k] = cos(x[k]);
    }
}

// The AVX-512 entry: sincos8_small's one pass where every angle is small, else sincos8_fma
NE_TARGET_AVX512 static void sincos8_avx512(const double* x, double* s, double* c) {
  if (!sincos8_small(x, s, c)) sincos8_fma(x, s, c);
}

static void sincos8_libm(const double* x, double* s, double* c) {
  for (int k = 0; k < 8; k++) s[k] = sin(x[k]), c[k] = cos(x[k]);
}

static atomic_int kernel_ok;  // 1: sincos8_fma reproduces this process's libm, 2: it does not
static atomic_int small8_ok;  // 1: so does sincos8_small (on a CPU with AVX-512)
static pthread_once_t check_once = PTHREAD_ONCE_INIT;

// The kernel against libm on 256 angles spread over its paths and their edges (~20 us once); any
// difference (another libm, glibc's non-FMA variants) leaves every lane to libm.
static void self_check(void) {
  int ok = ne__simd_cpu_level() >= NE_SIMD_AVX2;
  for (int i = 0; ok && i < 256; i += 8) {
    double x[8], s[8], c[8], ls[8], lc[8];
    for (int k = 0; k < 8; k++) {
      int j = i + k;
      // a golden-ratio walk over [-0.86, 0.86] and [-200, 200], then the edges 0.126 and k/128 +-
      // 1/256 and tiny values
      double walk = (double)j * 0.6180339887498949;
      double v = (walk - floor(walk)) * ((j & 2) ? 400.0 : 1.72) - ((j & 2) ? 200.0 : 0.86);
      if (j % 16 == 5) v = TAYLOR_BELOW * (1.0 + (double)(j % 7 - 3) * 0x1p-52);
      if (j % 16 == 9) v = ((double)(j % 110) + 0.5) / 128.0 * (1.0 - 0x1p-52 * (double)(j % 3));
      if (j % 64 == 13) v = ldexp(1.0, -27 - j % 3);
      x[k] = (j & 1) ? -v : v;
    }
    sincos8_fma(x, s, c);
    sincos8_libm(x, ls, lc);
    ok = memcmp(s, ls, sizeof s) == 0 && memcmp(c, lc, sizeof c) == 0;
  }
  // the AVX-512 pass over 8 small angles: a walk over [-0.855, 0.855], the 0.126 edge, k/128 +-
  // 1/256, tiny values and zeros of both signs
  int small_ok = ok && ne__simd_cpu_level() >= NE_SIMD_AVX512;
  for (int i = 0; small_ok && i < 256; i += 8) {
    double x[8], s[8], c[8], ls[8], lc[8];
    for (int k = 0; k < 8; k++) {
      int j = i + k;
      double walk = (double)j * 0.6180339887498949;
      double v = (walk - floor(walk)) * 1.71 - 0.855;
      if (j % 8 == 3) v = TAYLOR_BELOW * (1.0 + (double)(j % 7 - 3) * 0x1p-52);
      if (j % 8 == 5) v = ((double)(j % 109) + 0.5) / 128.0 * (1.0 - 0x1p-52 * (double)(j % 3));
      if (j % 32 == 7) v = ldexp(1.0, -26 - j % 4);
      if (j % 64 == 1 || j % 64 == 2) v = 0.0;  // -0.0, +0.0
      x[k] = (j & 1) ? -v : v;
    }
    small_ok = sincos8_small(x, s, c);
    sincos8_libm(x, ls, lc);
    small_ok = small_ok && memcmp(s, ls, sizeof s) == 0 && memcmp(c, lc, sizeof c) == 0;
  }
  atomic_store(&small8_ok, small_ok);
  atomic_store(&kernel_ok, ok ? 1 : 2);
}

int ne__sincos8_x86_usable(int level, const char** why) {
#ifndef __GLIBC__
  *why = "the C library is not glibc, whose sin and cos the kernels reproduce";
  return 0;
#endif
  pthread_once(&check_once, self_check);
  if (atomic_load(&kernel_ok) != 1) {
    *why = "the self-check against this process's libm failed (not glibc's FMA sin and cos)";
    return 0;
  }
  if (level >= NE_SIMD_AVX512 && !atomic_load(&small8_ok)) {
    *why = "the self-check of the AVX-512 pass against libm failed";
    return 0;
  }
  return 1;
}

const ne__sincos8_kernels ne__sincos8_avx2 = {sincos8_fma};
const ne__sincos8_kernels ne__sincos8_avx512 = {sincos8_avx512};
#endif
