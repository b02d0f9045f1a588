// One oneDNN matmul primitive timed with its weights row-major (ab, what `any` resolves to)
// or column-major (ba), optionally split into column parts: the scratch program behind the
// twenty-sixth pass's layout table (docs/performance.md).
// Build: g++ -O2 -o matmul_layouts matmul_layouts.cpp -ldnnl
// Run:   ./matmul_layouts ROWS K COLUMNS PARTS [any|ab|ba]   (prints ms and GFLOP/s, median of 30)
#include <dnnl.hpp>
#include <chrono>
#include <cstdio>
#include <vector>
#include <algorithm>
#include <string>
using namespace dnnl; using tag=memory::format_tag; using dt=memory::data_type;
double timeit(engine& eng, stream& s, const std::vector<std::pair<primitive,std::unordered_map<int,memory>>>& ps){
  for(int w=0;w<5;++w) for(auto&p:ps) p.first.execute(s,p.second); s.wait();
  std::vector<double> v;
  for(int r=0;r<30;++r){auto t0=std::chrono::steady_clock::now(); for(auto&p:ps) p.first.execute(s,p.second); s.wait();
    v.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now()-t0).count());}
  std::sort(v.begin(),v.end()); return v[v.size()/2];
}
int main(int argc,char**argv){
  engine eng(engine::kind::cpu,0); stream s(eng);
  int M=atoi(argv[1]),K=atoi(argv[2]),N=atoi(argv[3]),parts=atoi(argv[4]); std::string wtag=argc>5?argv[5]:"any";
  memory A({{M,K},dt::f32,tag::ab},eng);
  std::fill((float*)A.get_data_handle(),(float*)A.get_data_handle()+M*K,0.01f);
  std::vector<std::pair<primitive,std::unordered_map<int,memory>>> ps;
  memory Y({{M,N},dt::f32,tag::ab},eng);
  int n=N/parts; std::string impl,wf;
  for(int p=0;p<parts;++p){
    memory::desc a_md({M,K},dt::f32,tag::ab);
    memory::desc y_md({M,n},dt::f32,memory::dims{N,1});
    memory::desc b_md({K,n},dt::f32, wtag=="any"?tag::any: wtag=="ab"?tag::ab:tag::ba);
    matmul::primitive_desc pd(matmul::desc(a_md,b_md,y_md),eng);
    impl=pd.impl_info_str();
    memory B(pd.weights_desc(),eng); std::fill((float*)B.get_data_handle(),(float*)B.get_data_handle()+pd.weights_desc().get_size()/4,0.02f);
    memory Yp(y_md,eng,(float*)Y.get_data_handle()+p*n);
    ps.push_back({matmul(pd),{{DNNL_ARG_SRC,A},{DNNL_ARG_WEIGHTS,B},{DNNL_ARG_DST,Yp}}});
  }
  double t=timeit(eng,s,ps);
  printf("M%d K%d N%d parts%d w=%s %s: %.3f ms %.1f GFLOP/s\n",M,K,N,parts,wtag.c_str(),impl.c_str(),t*1e3,2.0*M*K*N/t/1e9);
}
