/* cb.c - does CUPTI collect time grow with module load/unload churn or
 * with activity enable/disable toggling? (session 19 probe) */
#include <cuda.h>
#include <cupti.h>
#include <cupti_profiler_target.h>
#include <nvrtc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
static pthread_mutex_t lk = PTHREAD_MUTEX_INITIALIZER;
static size_t nrec;
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
static void CUPTIAPI req(uint8_t **b,size_t *s,size_t *m){*b=aligned_alloc(8,4u<<20);*s=4u<<20;*m=0;}
static void CUPTIAPI done(CUcontext c,uint32_t st,uint8_t *b,size_t s,size_t v){CUpti_Activity*r=NULL;pthread_mutex_lock(&lk);
 while(cuptiActivityGetNextRecord(b,v,&r)==CUPTI_SUCCESS) if(r->kind==CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) nrec++;
 pthread_mutex_unlock(&lk);free(b);}
#define NV 16
int main(int argc,char**argv){
 int mode=atoi(argv[1]), J=atoi(argv[2]); /* bit0 churn, bit1 toggle, bit2 keep enabled+discard */
 cuInit(0);CUdevice d;cuDeviceGet(&d,0);CUcontext ctx;cuDevicePrimaryCtxRetain(&ctx,d);cuCtxSetCurrent(ctx);
 CUstream s;cuStreamCreate(&s,CU_STREAM_NON_BLOCKING);
 char *cub[NV];size_t cubn[NV];
 for(int i=0;i<NV;i++){char src[512];snprintf(src,sizeof src,"extern \"C\" __global__ void k(float*x,int n){int i=blockIdx.x*blockDim.x+threadIdx.x;if(i<n)x[i]=x[i]*%d.0f+1.0f;}",i+2);
  nvrtcProgram p;nvrtcCreateProgram(&p,src,"k.cu",0,0,0);const char*o[]={"-arch=sm_90a"};if(nvrtcCompileProgram(p,1,o)){puts("nvrtc fail");return 1;}
  nvrtcGetCUBINSize(p,&cubn[i]);cub[i]=malloc(cubn[i]);nvrtcGetCUBIN(p,cub[i]);nvrtcDestroyProgram(&p);}
 CUdeviceptr x;int n=1<<22;cuMemAlloc(&x,n*4);
 cuptiActivityRegisterCallbacks(req,done);cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
 if(mode&8){CUpti_Profiler_Initialize_Params pi={CUpti_Profiler_Initialize_Params_STRUCT_SIZE,NULL};printf("init %d\n",(int)cuptiProfilerInitialize(&pi));}
 if(mode&16){CUpti_Profiler_DeInitialize_Params pd={CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE,NULL};printf("deinit %d\n",(int)cuptiProfilerDeInitialize(&pd));}
 CUmodule m0;cuModuleLoadData(&m0,cub[0]);
 double tc=0,tj=0;
 for(int j=0;j<J;j++){double j0=now();CUmodule m=m0;if(mode&1)cuModuleLoadData(&m,cub[j%NV]);CUfunction f;cuModuleGetFunction(&f,m,"k");
  void*a[]={&x,&n};
  if(mode&2){cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);}
  for(int i=0;i<3;i++)cuLaunchKernel(f,n/256,1,1,256,1,1,0,s,a,0);cuStreamSynchronize(s);
  if(mode&2)cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  cuptiActivityFlushAll(0);pthread_mutex_lock(&lk);nrec=0;pthread_mutex_unlock(&lk);
  for(int i=0;i<10;i++)cuLaunchKernel(f,n/256,1,1,256,1,1,0,s,a,0);cuStreamSynchronize(s);
  double c0=now();for(int at=0;;at++){double w=now()-c0;cuptiActivityFlushAll(w<1.0?0:CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);pthread_mutex_lock(&lk);size_t g=nrec;pthread_mutex_unlock(&lk);if(g>=10||w>60)break;usleep(50);}
  tc+=now()-c0;
  if(mode&1)cuModuleUnload(m);tj+=now()-j0;
  if((j+1)%1000==0){printf("mode %d jobs %5d collect %.3f ms job %.3f ms\n",mode,j+1,tc/1000,tj/1000);fflush(stdout);tc=tj=0;}
 }
 return 0;}
