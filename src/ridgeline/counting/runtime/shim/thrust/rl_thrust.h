/* ridgeline CPU execution layer: Thrust on the host. Written for ridgeline (not NVIDIA's
 * Thrust): device memory is host memory, so device_vector is a std::vector, device_ptr a
 * plain pointer wrapper, and the algorithms are the std:: ones with Thrust's argument
 * orders and results. They run outside kernel launches, so they are not counted (Thrust's
 * own kernels are not the program's kernels). Execution policies are accepted and ignored. */
#pragma once
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <functional>
#include <iostream> /* NVIDIA's headers bring it in; programs rely on that */
#include <iterator>
#include <numeric>
#include <random>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#define THRUST_VERSION 200000
#define THRUST_MAJOR_VERSION 2
#define THRUST_MINOR_VERSION 0
#define THRUST_SUBMINOR_VERSION 0
#define THRUST_DEVICE_SYSTEM_CUDA 1
#define THRUST_DEVICE_SYSTEM THRUST_DEVICE_SYSTEM_CUDA

namespace thrust {

/* ---- execution policies ---------------------------------------------------------------- */
struct __rl_policy {
  template <class S> __rl_policy on(S) const { return *this; }
};
static const __rl_policy device{}, host{}, seq{};
namespace cuda { static const __rl_policy par{}, par_nosync{}; }
namespace system { namespace cuda { using thrust::cuda::par; using thrust::cuda::par_nosync; } }
namespace cuda_cub { using thrust::cuda::par; }
template <class P> struct __rl_is_policy
    : std::is_base_of<__rl_policy, typename std::decay<P>::type> {};

/* ---- tuples, pairs ----------------------------------------------------------------------- */
using std::get;
using std::make_pair;
using std::make_tuple;
using std::pair;
using std::tie;
using std::tuple;
using std::tuple_element;
using std::tuple_size;

/* ---- pointers and vectors ----------------------------------------------------------------- */
template <class T> class device_ptr {
 public:
  using iterator_category = std::random_access_iterator_tag;
  using value_type = typename std::remove_cv<T>::type;
  using difference_type = std::ptrdiff_t;
  using pointer = T *;
  using reference = T &;
  device_ptr() : p_(nullptr) {}
  explicit device_ptr(T *p) : p_(p) {}
  template <class U> device_ptr(const device_ptr<U> &o) : p_(o.get()) {}
  T *get() const { return p_; }
  T &operator*() const { return *p_; }
  T *operator->() const { return p_; }
  T &operator[](difference_type i) const { return p_[i]; }
  device_ptr &operator++() { ++p_; return *this; }
  device_ptr operator++(int) { device_ptr r = *this; ++p_; return r; }
  device_ptr &operator--() { --p_; return *this; }
  device_ptr operator--(int) { device_ptr r = *this; --p_; return r; }
  device_ptr &operator+=(difference_type n) { p_ += n; return *this; }
  device_ptr &operator-=(difference_type n) { p_ -= n; return *this; }
  device_ptr operator+(difference_type n) const { return device_ptr(p_ + n); }
  device_ptr operator-(difference_type n) const { return device_ptr(p_ - n); }
  difference_type operator-(const device_ptr &o) const { return p_ - o.p_; }
  bool operator==(const device_ptr &o) const { return p_ == o.p_; }
  bool operator!=(const device_ptr &o) const { return p_ != o.p_; }
  bool operator<(const device_ptr &o) const { return p_ < o.p_; }
  bool operator>(const device_ptr &o) const { return p_ > o.p_; }
  bool operator<=(const device_ptr &o) const { return p_ <= o.p_; }
  bool operator>=(const device_ptr &o) const { return p_ >= o.p_; }
  explicit operator bool() const { return p_ != nullptr; }

 private:
  T *p_;
};
template <class T> device_ptr<T> device_pointer_cast(T *p) { return device_ptr<T>(p); }
template <class T> device_ptr<T> device_pointer_cast(device_ptr<T> p) { return p; }
template <class T> T *raw_pointer_cast(T *p) { return p; }
template <class T> T *raw_pointer_cast(const device_ptr<T> &p) { return p.get(); }
template <class T> device_ptr<T> device_malloc(std::size_t n) {
  return device_ptr<T>(static_cast<T *>(::operator new(n * sizeof(T))));
}
template <class T> void device_free(device_ptr<T> p) { ::operator delete((void *)p.get()); }

template <class T, class A = std::allocator<T>> class host_vector : public std::vector<T, A> {
 public:
  using std::vector<T, A>::vector;
  host_vector() = default;
  template <class V, class = decltype(std::declval<V>().begin())>
  host_vector(const V &o) : std::vector<T, A>(o.begin(), o.end()) {}
  template <class V, class = decltype(std::declval<V>().begin())>
  host_vector &operator=(const V &o) { this->assign(o.begin(), o.end()); return *this; }
};
template <class T, class A = std::allocator<T>> class device_vector : public std::vector<T, A> {
 public:
  using std::vector<T, A>::vector;
  device_vector() = default;
  device_ptr<T> data() { return device_ptr<T>(std::vector<T, A>::data()); }
  device_ptr<const T> data() const { return device_ptr<const T>(std::vector<T, A>::data()); }
  template <class V, class = decltype(std::declval<V>().begin())>
  device_vector(const V &o) : std::vector<T, A>(o.begin(), o.end()) {}
  template <class V, class = decltype(std::declval<V>().begin())>
  device_vector &operator=(const V &o) { this->assign(o.begin(), o.end()); return *this; }
};

/* ---- function objects --------------------------------------------------------------------- */
template <class A, class R> struct unary_function { using argument_type = A; using result_type = R; };
template <class A, class B, class R> struct binary_function {
  using first_argument_type = A; using second_argument_type = B; using result_type = R;
};
#define RL_BINOP(N, EXPR)                                                                    \
  template <class T = void> struct N {                                                      \
    using result_type = T;                                                                   \
    T operator()(const T &a, const T &b) const { return EXPR; }                              \
  };                                                                                         \
  template <> struct N<void> {                                                               \
    template <class A, class B> auto operator()(const A &a, const B &b) const { return EXPR; } \
  };
RL_BINOP(plus, a + b)
RL_BINOP(minus, a - b)
RL_BINOP(multiplies, a * b)
RL_BINOP(divides, a / b)
RL_BINOP(modulus, a % b)
RL_BINOP(maximum, a < b ? b : a)
RL_BINOP(minimum, b < a ? b : a)
RL_BINOP(bit_and, a & b)
RL_BINOP(bit_or, a | b)
RL_BINOP(bit_xor, a ^ b)
#undef RL_BINOP
#define RL_PRED(N, EXPR)                                                                     \
  template <class T = void> struct N {                                                      \
    bool operator()(const T &a, const T &b) const { return EXPR; }                           \
  };                                                                                         \
  template <> struct N<void> {                                                               \
    template <class A, class B> bool operator()(const A &a, const B &b) const { return EXPR; } \
  };
RL_PRED(less, a < b)
RL_PRED(greater, b < a)
RL_PRED(less_equal, !(b < a))
RL_PRED(greater_equal, !(a < b))
RL_PRED(equal_to, a == b)
RL_PRED(not_equal_to, !(a == b))
RL_PRED(logical_and, a && b)
RL_PRED(logical_or, a || b)
#undef RL_PRED
template <class T = void> struct negate { T operator()(const T &a) const { return -a; } };
template <class T = void> struct logical_not { bool operator()(const T &a) const { return !a; } };
template <class T = void> struct identity { const T &operator()(const T &a) const { return a; } };
template <> struct identity<void> {
  template <class A> const A &operator()(const A &a) const { return a; }
};

/* ---- fancy iterators ---------------------------------------------------------------------- */
template <class T, class Self> struct __rl_index_iter {
  using iterator_category = std::random_access_iterator_tag;
  using value_type = T;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = T;
  std::ptrdiff_t i = 0;
  Self &self() { return static_cast<Self &>(*this); }
  const Self &self() const { return static_cast<const Self &>(*this); }
  T operator*() const { return self().at(i); }
  T operator[](std::ptrdiff_t n) const { return self().at(i + n); }
  Self &operator++() { ++i; return self(); }
  Self operator++(int) { Self r = self(); ++i; return r; }
  Self &operator--() { --i; return self(); }
  Self operator--(int) { Self r = self(); --i; return r; }
  Self &operator+=(std::ptrdiff_t n) { i += n; return self(); }
  Self &operator-=(std::ptrdiff_t n) { i -= n; return self(); }
  Self operator+(std::ptrdiff_t n) const { Self r = self(); r.i += n; return r; }
  Self operator-(std::ptrdiff_t n) const { Self r = self(); r.i -= n; return r; }
  std::ptrdiff_t operator-(const Self &o) const { return i - o.i; }
  bool operator==(const Self &o) const { return i == o.i; }
  bool operator!=(const Self &o) const { return i != o.i; }
  bool operator<(const Self &o) const { return i < o.i; }
};
template <class T> struct counting_iterator : __rl_index_iter<T, counting_iterator<T>> {
  T base;
  counting_iterator(T b = T()) : base(b) {}
  T at(std::ptrdiff_t k) const { return base + (T)k; }
};
template <class T> counting_iterator<T> make_counting_iterator(T b) { return counting_iterator<T>(b); }
template <class T> struct constant_iterator : __rl_index_iter<T, constant_iterator<T>> {
  T value;
  constant_iterator(T v = T()) : value(v) {}
  T at(std::ptrdiff_t) const { return value; }
};
template <class T> constant_iterator<T> make_constant_iterator(T v) { return constant_iterator<T>(v); }
template <class F, class It, class R = typename std::decay<decltype(
    std::declval<F>()(*std::declval<It>()))>::type>
struct transform_iterator : __rl_index_iter<R, transform_iterator<F, It, R>> {
  F f; It it;
  transform_iterator(It i, F fn) : f(fn), it(i) {}
  R at(std::ptrdiff_t k) const { return f(it[k]); }
};
template <class It, class F> transform_iterator<F, It> make_transform_iterator(It i, F f) {
  return transform_iterator<F, It>(i, f);
}
template <class E, class I>
struct permutation_iterator
    : __rl_index_iter<typename std::iterator_traits<E>::value_type, permutation_iterator<E, I>> {
  E e; I idx;
  permutation_iterator(E el, I ix) : e(el), idx(ix) {}
  typename std::iterator_traits<E>::value_type at(std::ptrdiff_t k) const { return e[idx[k]]; }
};
template <class E, class I> permutation_iterator<E, I> make_permutation_iterator(E e, I i) {
  return permutation_iterator<E, I>(e, i);
}

/* ---- algorithms (each also takes an execution policy first) -------------------------------- */
template <class It> typename std::iterator_traits<It>::difference_type distance(It a, It b) {
  return std::distance(a, b);
}
template <class It, class T> void fill(It a, It b, const T &v) { std::fill(a, b, v); }
template <class It, class N, class T> It fill_n(It a, N n, const T &v) { return std::fill_n(a, n, v); }
template <class I, class O> O copy(I a, I b, O o) { return std::copy(a, b, o); }
template <class I, class N, class O> O copy_n(I a, N n, O o) { return std::copy_n(a, n, o); }
template <class I, class O, class P> O copy_if(I a, I b, O o, P p) { return std::copy_if(a, b, o, p); }
template <class It, class T> void sequence(It a, It b, T init, T step) {
  for (T v = init; a != b; ++a, v = v + step) *a = v;
}
template <class It, class T> void sequence(It a, It b, T init) { thrust::sequence(a, b, init, T(1)); }
template <class It> void sequence(It a, It b) {
  thrust::sequence(a, b, typename std::iterator_traits<It>::value_type(0));
}
template <class It, class N, class F> void tabulate(It a, It b, F f) {
  for (N i = 0; a != b; ++a, ++i) *a = f(i);
}
template <class It, class G> void generate(It a, It b, G g) { std::generate(a, b, g); }
template <class It, class F> It for_each(It a, It b, F f) { std::for_each(a, b, f); return b; }
template <class I, class O, class F,
          class = typename std::enable_if<!__rl_is_policy<I>::value>::type>
O transform(I a, I b, O o, F f) { return std::transform(a, b, o, f); }
template <class I1, class I2, class O, class F,
          class = typename std::enable_if<!__rl_is_policy<I1>::value>::type>
O transform(I1 a, I1 b, I2 c, O o, F f) { return std::transform(a, b, c, o, f); }
template <class It> typename std::iterator_traits<It>::value_type reduce(It a, It b) {
  using T = typename std::iterator_traits<It>::value_type;
  return std::accumulate(a, b, T(0));
}
template <class It, class T> T reduce(It a, It b, T init) { return std::accumulate(a, b, init); }
template <class It, class T, class F> T reduce(It a, It b, T init, F f) {
  return std::accumulate(a, b, init, f);
}
template <class It, class U, class T, class R> T transform_reduce(It a, It b, U u, T init, R r) {
  for (; a != b; ++a) init = r(init, u(*a));
  return init;
}
template <class I1, class I2, class T> T inner_product(I1 a, I1 b, I2 c, T init) {
  return std::inner_product(a, b, c, init);
}
template <class I1, class I2, class T, class R, class M>
T inner_product(I1 a, I1 b, I2 c, T init, R r, M m) {
  return std::inner_product(a, b, c, init, r, m);
}
template <class I, class O> O inclusive_scan(I a, I b, O o) { return std::partial_sum(a, b, o); }
template <class I, class O, class F> O inclusive_scan(I a, I b, O o, F f) {
  return std::partial_sum(a, b, o, f);
}
template <class I, class O, class T, class F> O exclusive_scan(I a, I b, O o, T init, F f) {
  for (; a != b; ++a, ++o) { T v = *a; *o = init; init = f(init, v); }
  return o;
}
template <class I, class O, class T> O exclusive_scan(I a, I b, O o, T init) {
  return thrust::exclusive_scan(a, b, o, init, plus<T>());
}
template <class I, class O> O exclusive_scan(I a, I b, O o) {
  return thrust::exclusive_scan(a, b, o, typename std::iterator_traits<I>::value_type(0));
}
template <class It> void sort(It a, It b) { std::sort(a, b); }
template <class It, class C> void sort(It a, It b, C c) { std::sort(a, b, c); }
template <class It> void stable_sort(It a, It b) { std::stable_sort(a, b); }
template <class It, class C> void stable_sort(It a, It b, C c) { std::stable_sort(a, b, c); }
/* by-key sorts: a stable permutation of the keys, applied to keys and values */
template <class K, class V, class C> void stable_sort_by_key(K kb, K ke, V vb, C c) {
  using KT = typename std::iterator_traits<K>::value_type;
  using VT = typename std::iterator_traits<V>::value_type;
  std::ptrdiff_t n = ke - kb;
  std::vector<std::ptrdiff_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(),
                   [&](std::ptrdiff_t x, std::ptrdiff_t y) { return c(kb[x], kb[y]); });
  std::vector<KT> ks(n);
  std::vector<VT> vs(n);
  for (std::ptrdiff_t i = 0; i < n; i++) { ks[i] = kb[perm[i]]; vs[i] = vb[perm[i]]; }
  std::copy(ks.begin(), ks.end(), kb);
  std::copy(vs.begin(), vs.end(), vb);
}
template <class K, class V> void stable_sort_by_key(K kb, K ke, V vb) {
  thrust::stable_sort_by_key(kb, ke, vb, less<>());
}
template <class K, class V, class C> void sort_by_key(K kb, K ke, V vb, C c) {
  thrust::stable_sort_by_key(kb, ke, vb, c);
}
template <class K, class V> void sort_by_key(K kb, K ke, V vb) { thrust::stable_sort_by_key(kb, ke, vb); }
template <class It> It unique(It a, It b) { return std::unique(a, b); }
template <class It, class P> It unique(It a, It b, P p) { return std::unique(a, b, p); }
template <class K, class V, class P> pair<K, V> unique_by_key(K kb, K ke, V vb, P p) {
  if (kb == ke) return {kb, vb};
  K ko = kb; V vo = vb;
  K k = kb; V v = vb;
  for (++k, ++v; k != ke; ++k, ++v)
    if (!p(*ko, *k)) { ++ko; ++vo; *ko = *k; *vo = *v; }
  return {++ko, ++vo};
}
template <class K, class V> pair<K, V> unique_by_key(K kb, K ke, V vb) {
  return thrust::unique_by_key(kb, ke, vb, equal_to<>());
}
template <class KI, class VI, class KO, class VO, class P, class F>
pair<KO, VO> reduce_by_key(KI kb, KI ke, VI vb, KO ko, VO vo, P p, F f) {
  if (kb == ke) return {ko, vo};
  auto key = *kb;
  auto acc = *vb;
  for (++kb, ++vb; kb != ke; ++kb, ++vb) {
    if (p(key, *kb)) { acc = f(acc, *vb); continue; }
    *ko++ = key; *vo++ = acc; key = *kb; acc = *vb;
  }
  *ko++ = key; *vo++ = acc;
  return {ko, vo};
}
template <class KI, class VI, class KO, class VO, class P>
pair<KO, VO> reduce_by_key(KI kb, KI ke, VI vb, KO ko, VO vo, P p) {
  return thrust::reduce_by_key(kb, ke, vb, ko, vo, p, plus<>());
}
template <class KI, class VI, class KO, class VO>
pair<KO, VO> reduce_by_key(KI kb, KI ke, VI vb, KO ko, VO vo) {
  return thrust::reduce_by_key(kb, ke, vb, ko, vo, equal_to<>(), plus<>());
}
template <class It> It min_element(It a, It b) { return std::min_element(a, b); }
template <class It, class C> It min_element(It a, It b, C c) { return std::min_element(a, b, c); }
template <class It> It max_element(It a, It b) { return std::max_element(a, b); }
template <class It, class C> It max_element(It a, It b, C c) { return std::max_element(a, b, c); }
template <class It> pair<It, It> minmax_element(It a, It b) { return std::minmax_element(a, b); }
template <class It, class C> pair<It, It> minmax_element(It a, It b, C c) {
  return std::minmax_element(a, b, c);
}
template <class It, class T> It find(It a, It b, const T &v) { return std::find(a, b, v); }
template <class It, class P> It find_if(It a, It b, P p) { return std::find_if(a, b, p); }
template <class It, class T> std::ptrdiff_t count(It a, It b, const T &v) { return std::count(a, b, v); }
template <class It, class P> std::ptrdiff_t count_if(It a, It b, P p) { return std::count_if(a, b, p); }
template <class It, class T> It remove(It a, It b, const T &v) { return std::remove(a, b, v); }
template <class It, class P> It remove_if(It a, It b, P p) { return std::remove_if(a, b, p); }
template <class It, class T> void replace(It a, It b, const T &o, const T &n) { std::replace(a, b, o, n); }
template <class M, class I, class O> O gather(M mb, M me, I in, O o) {
  for (; mb != me; ++mb, ++o) *o = in[*mb];
  return o;
}
template <class I, class M, class O> void scatter(I a, I b, M m, O o) {
  for (; a != b; ++a, ++m) o[*m] = *a;
}
template <class I1, class I2> bool equal(I1 a, I1 b, I2 c) { return std::equal(a, b, c); }
template <class I, class O> O adjacent_difference(I a, I b, O o) { return std::adjacent_difference(a, b, o); }
template <class It, class T> It lower_bound(It a, It b, const T &v) { return std::lower_bound(a, b, v); }
template <class It, class T> It upper_bound(It a, It b, const T &v) { return std::upper_bound(a, b, v); }
template <class It, class G> void shuffle(It a, It b, G &&g) { std::shuffle(a, b, g); }

#define RL_POLICY_FORWARD(N)                                                                 \
  template <class P, class... A,                                                             \
            class = typename std::enable_if<__rl_is_policy<P>::value>::type>                 \
  auto N(const P &, A &&...a) -> decltype(thrust::N(std::forward<A>(a)...)) {                        \
    return thrust::N(std::forward<A>(a)...);                                                       \
  }
RL_POLICY_FORWARD(fill) RL_POLICY_FORWARD(fill_n) RL_POLICY_FORWARD(copy)
RL_POLICY_FORWARD(copy_n) RL_POLICY_FORWARD(copy_if) RL_POLICY_FORWARD(sequence)
RL_POLICY_FORWARD(generate) RL_POLICY_FORWARD(for_each) RL_POLICY_FORWARD(transform)
RL_POLICY_FORWARD(reduce) RL_POLICY_FORWARD(transform_reduce) RL_POLICY_FORWARD(inner_product)
RL_POLICY_FORWARD(inclusive_scan) RL_POLICY_FORWARD(exclusive_scan) RL_POLICY_FORWARD(sort)
RL_POLICY_FORWARD(stable_sort) RL_POLICY_FORWARD(sort_by_key) RL_POLICY_FORWARD(stable_sort_by_key)
RL_POLICY_FORWARD(unique) RL_POLICY_FORWARD(unique_by_key) RL_POLICY_FORWARD(reduce_by_key)
RL_POLICY_FORWARD(min_element) RL_POLICY_FORWARD(max_element) RL_POLICY_FORWARD(minmax_element)
RL_POLICY_FORWARD(find) RL_POLICY_FORWARD(find_if) RL_POLICY_FORWARD(count)
RL_POLICY_FORWARD(count_if) RL_POLICY_FORWARD(remove) RL_POLICY_FORWARD(remove_if)
RL_POLICY_FORWARD(replace) RL_POLICY_FORWARD(gather) RL_POLICY_FORWARD(scatter)
RL_POLICY_FORWARD(equal) RL_POLICY_FORWARD(adjacent_difference) RL_POLICY_FORWARD(lower_bound)
RL_POLICY_FORWARD(upper_bound) RL_POLICY_FORWARD(shuffle)
#undef RL_POLICY_FORWARD

/* ---- random ------------------------------------------------------------------------------- */
namespace random {
using default_random_engine = std::minstd_rand;
using minstd_rand = std::minstd_rand;
template <class T = double> using uniform_real_distribution = std::uniform_real_distribution<T>;
template <class T = int> using uniform_int_distribution = std::uniform_int_distribution<T>;
template <class T = double> using normal_distribution = std::normal_distribution<T>;
}  // namespace random
using random::default_random_engine;
using random::normal_distribution;
using random::uniform_int_distribution;
using random::uniform_real_distribution;

}  // namespace thrust

#include "rl_complex.h"
