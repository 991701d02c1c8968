/* ridgeline: a tiny stand-in for the parts of the C++ standard library (and Thrust) that
   kernels and offload regions use, so they parse without libstdc++ (slow to parse, and not
   needed to find kernels). Declarations only; written for ridgeline. */
#ifndef __RIDGELINE_STD_H
#define __RIDGELINE_STD_H
#ifdef __cplusplus
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
namespace std {
typedef ::size_t size_t;
typedef long ptrdiff_t;
using ::int8_t; using ::int16_t; using ::int32_t; using ::int64_t;
using ::uint8_t; using ::uint16_t; using ::uint32_t; using ::uint64_t;
using ::sqrt; using ::sqrtf; using ::exp; using ::expf; using ::log; using ::logf;
using ::pow; using ::powf; using ::sin; using ::sinf; using ::cos; using ::cosf;
using ::tan; using ::tanf; using ::fabs; using ::fabsf; using ::floor; using ::floorf;
using ::ceil; using ::ceilf; using ::fmin; using ::fminf; using ::fmax; using ::fmaxf;
using ::atan2; using ::atan2f; using ::tanh; using ::tanhf; using ::erf; using ::erff;
using ::log2; using ::log10; using ::exp2; using ::cbrt; using ::round; using ::fma;
using ::fmod; using ::hypot; using ::atan; using ::asin; using ::acos; using ::trunc;
using ::abs; using ::malloc; using ::free; using ::memcpy; using ::memset; using ::rand;
using ::srand; using ::atoi; using ::atof; using ::printf; using ::exit; using ::qsort;
inline float abs(float x) { return fabsf(x); }
inline double abs(double x) { return fabs(x); }
inline float sqrt(float x) { return sqrtf(x); }
inline float exp(float x) { return expf(x); }
inline float log(float x) { return logf(x); }
inline float pow(float x, float y) { return powf(x, y); }
inline float sin(float x) { return sinf(x); }
inline float cos(float x) { return cosf(x); }
template <class T> const T &min(const T &a, const T &b) { return b < a ? b : a; }
template <class T> const T &max(const T &a, const T &b) { return a < b ? b : a; }
template <class T> void swap(T &a, T &b) { T t = a; a = b; b = t; }
template <bool B, class T = void> struct enable_if {};
template <class T> struct enable_if<true, T> { typedef T type; };
template <bool B, class T = void> using enable_if_t = typename enable_if<B, T>::type;
template <class A, class B> struct is_same { static const bool value = false; };
template <class A> struct is_same<A, A> { static const bool value = true; };
template <class A, class B> inline constexpr bool is_same_v = is_same<A, B>::value;
template <class T> struct remove_reference { typedef T type; };
template <class T> struct remove_reference<T &> { typedef T type; };
template <class T> struct numeric_limits {
  static T min(); static T max(); static T lowest(); static T epsilon(); static T infinity();
  static T quiet_NaN(); static const int digits = 0;
};
template <class T> struct allocator {};
template <class T, class A = allocator<T>> struct vector {
  vector(); explicit vector(size_t n); vector(size_t n, const T &v);
  T *data(); const T *data() const; size_t size() const; bool empty() const;
  T &operator[](size_t i); const T &operator[](size_t i) const;
  T *begin(); T *end(); const T *begin() const; const T *end() const;
  void push_back(const T &v); void resize(size_t n); void resize(size_t n, const T &v);
  void reserve(size_t n); void clear(); T &back(); T &front();
};
template <class T, size_t N> struct array {
  T __a[N]; T *data(); size_t size() const; T &operator[](size_t i);
  const T &operator[](size_t i) const; T *begin(); T *end();
};
template <class A, class B> struct pair { A first; B second; };
template <class A, class B> pair<A, B> make_pair(A a, B b);
template <class T> struct complex {
  complex(T r = T(), T i = T()); T real() const; T imag() const;
};
struct string {
  string(); string(const char *); const char *c_str() const; size_t size() const;
};
struct ostream {};
template <class T> ostream &operator<<(ostream &o, const T &);
extern ostream cout, cerr;
extern const char *endl;
template <class I, class T> T accumulate(I a, I b, T init);
template <class I> void sort(I a, I b);
template <class I, class C> void sort(I a, I b, C c);
template <class I, class T> void fill(I a, I b, const T &v);
template <class I, class O> O copy(I a, I b, O o);
template <class I> I max_element(I a, I b);
template <class I> I min_element(I a, I b);
namespace chrono {
struct duration_t { double count() const; };
template <class A, class B = int> struct duration { double count() const; };
typedef duration<double> seconds_d;
struct time_point { duration_t operator-(const time_point &) const; };
struct steady_clock { static time_point now(); };
typedef steady_clock high_resolution_clock;
typedef steady_clock system_clock;
template <class D, class S> D duration_cast(const S &);
struct nanoseconds { double count() const; };
struct microseconds { double count() const; };
struct milliseconds { double count() const; };
}  // namespace chrono
struct mt19937 { mt19937(unsigned s = 0); unsigned operator()(); };
template <class T = int> struct uniform_int_distribution {
  uniform_int_distribution(T a = 0, T b = 0); template <class G> T operator()(G &g);
};
template <class T = double> struct uniform_real_distribution {
  uniform_real_distribution(T a = 0, T b = 1); template <class G> T operator()(G &g);
};
template <class T = double> struct normal_distribution {
  normal_distribution(T a = 0, T b = 1); template <class G> T operator()(G &g);
};
}  // namespace std
namespace thrust {
template <class T> struct complex {
  complex(T r = T(), T i = T()); T real() const; T imag() const;
  complex &operator+=(const complex &); complex &operator*=(const complex &);
};
template <class T> complex<T> operator+(const complex<T> &, const complex<T> &);
template <class T> complex<T> operator-(const complex<T> &, const complex<T> &);
template <class T> complex<T> operator*(const complex<T> &, const complex<T> &);
template <class T> complex<T> operator*(const complex<T> &, const T &);
template <class T> T abs(const complex<T> &);
template <class T> complex<T> exp(const complex<T> &);
template <class T> struct device_ptr {
  T *get() const; T &operator[](size_t i) const; T &operator*() const;
};
template <class T> T *raw_pointer_cast(device_ptr<T> p);
template <class T> T *raw_pointer_cast(T *p);
template <class T> struct device_vector : std::vector<T> {
  using std::vector<T>::vector;
};
template <class T> struct host_vector : std::vector<T> {
  using std::vector<T>::vector;
};
}  // namespace thrust
#endif
#endif
