/* parse_bench: time to parse and canonicalise a type, and to print it
 * (SPEC §5: well under 10 us). One context per spelling; the first parse
 * interns, later ones find the interned type, as a compiler's would. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "layoutc/layoutc.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(void){
  const char *types[]={"tensor<2x20x3x3xf32, \"nChw16c\">","tensor<1024x10240xf16, tiled_layout<<0,1>,(128),(2,1)>>","tensor<4x6xf32, strided<[1,4]>>","tensor<2x7x8x11x10xf32, tiled_layout<<0,1,2,3,4>,(*,*,2,*,3)>>"};
  for(int k=0;k<4;k++){
    LyContext c=lyContextCreate();
    int N=200000; double t0=now();
    for(int i=0;i<N;i++){ LyType t=lyTypeParse(c,types[k],strlen(types[k]),0); if(lyTypeIsNull(t)) return 1;}
    double t1=now();
    char *s=NULL; double t2=now(); for(int i=0;i<N/10;i++){ LyType t=lyTypeParse(c,types[k],strlen(types[k]),0); s=lyTypeToString(t); lyStringFree(s);} double t3=now();
    printf("%-70s parse+canonicalise %.2f us, print %.2f us\n", types[k], (t1-t0)/N*1e6, ((t3-t2)/(N/10)-(t1-t0)/N)*1e6);
    lyContextDestroy(c);
  }
}
