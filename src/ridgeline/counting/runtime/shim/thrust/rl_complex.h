/* ridgeline CPU execution layer: thrust::complex<T>, written for ridgeline. Arithmetic is
 * spelled out as the textbook formulas (a product is 4 multiplies and 2 adds), with no
 * NaN/overflow recovery paths, so the counted FLOPs are those of the formulas. */
#pragma once
#include <cmath>
#include <complex>
#include <ostream>

namespace thrust {

template <class T> struct complex {
  using value_type = T;
  T re, im;
  complex(const T &r = T(), const T &i = T()) : re(r), im(i) {}
  template <class U> complex(const complex<U> &o) : re(T(o.real())), im(T(o.imag())) {}
  template <class U> complex(const std::complex<U> &o) : re(T(o.real())), im(T(o.imag())) {}
  operator std::complex<T>() const { return std::complex<T>(re, im); }
  T real() const { return re; }
  T imag() const { return im; }
  void real(T v) { re = v; }
  void imag(T v) { im = v; }
  complex &operator+=(const complex &o) { re += o.re; im += o.im; return *this; }
  complex &operator-=(const complex &o) { re -= o.re; im -= o.im; return *this; }
  complex &operator*=(const complex &o) { return *this = *this * o; }
  complex &operator/=(const complex &o) { return *this = *this / o; }
  complex &operator+=(const T &o) { re += o; return *this; }
  complex &operator-=(const T &o) { re -= o; return *this; }
  complex &operator*=(const T &o) { re *= o; im *= o; return *this; }
  complex &operator/=(const T &o) { re /= o; im /= o; return *this; }
  friend complex operator+(const complex &a, const complex &b) { return complex(a.re + b.re, a.im + b.im); }
  friend complex operator-(const complex &a, const complex &b) { return complex(a.re - b.re, a.im - b.im); }
  friend complex operator*(const complex &a, const complex &b) {
    return complex(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
  }
  friend complex operator/(const complex &a, const complex &b) {
    // scaled by |b.re| + |b.im| against overflow, as Thrust does
    T s = std::abs(b.re) + std::abs(b.im);
    T inv = T(1) / s;
    T ar = a.re * inv, ai = a.im * inv, br = b.re * inv, bi = b.im * inv;
    T d = T(1) / (br * br + bi * bi);
    return complex((ar * br + ai * bi) * d, (ai * br - ar * bi) * d);
  }
  friend complex operator+(const complex &a, const T &b) { return complex(a.re + b, a.im); }
  friend complex operator+(const T &a, const complex &b) { return complex(a + b.re, b.im); }
  friend complex operator-(const complex &a, const T &b) { return complex(a.re - b, a.im); }
  friend complex operator-(const T &a, const complex &b) { return complex(a - b.re, -b.im); }
  friend complex operator*(const complex &a, const T &b) { return complex(a.re * b, a.im * b); }
  friend complex operator*(const T &a, const complex &b) { return complex(a * b.re, a * b.im); }
  friend complex operator/(const complex &a, const T &b) { return complex(a.re / b, a.im / b); }
  friend complex operator/(const T &a, const complex &b) { return complex(a) / b; }
  friend complex operator-(const complex &a) { return complex(-a.re, -a.im); }
  friend complex operator+(const complex &a) { return a; }
  friend bool operator==(const complex &a, const complex &b) { return a.re == b.re && a.im == b.im; }
  friend bool operator!=(const complex &a, const complex &b) { return !(a == b); }
  friend std::ostream &operator<<(std::ostream &os, const complex &z) {
    return os << '(' << z.re << ',' << z.im << ')';
  }
};

template <class T> T real(const complex<T> &z) { return z.re; }
template <class T> T imag(const complex<T> &z) { return z.im; }
template <class T> T abs(const complex<T> &z) { return std::hypot(z.re, z.im); }
template <class T> T arg(const complex<T> &z) { return std::atan2(z.im, z.re); }
template <class T> T norm(const complex<T> &z) { return z.re * z.re + z.im * z.im; }
template <class T> complex<T> conj(const complex<T> &z) { return complex<T>(z.re, -z.im); }
template <class T> complex<T> polar(const T &m, const T &t = T()) {
  return complex<T>(m * std::cos(t), m * std::sin(t));
}
template <class T> complex<T> exp(const complex<T> &z) { return polar(std::exp(z.re), z.im); }
template <class T> complex<T> log(const complex<T> &z) { return complex<T>(std::log(abs(z)), arg(z)); }
template <class T> complex<T> sqrt(const complex<T> &z) { return complex<T>(std::sqrt(std::complex<T>(z))); }
template <class T> complex<T> pow(const complex<T> &a, const complex<T> &b) { return exp(b * log(a)); }
template <class T> complex<T> pow(const complex<T> &a, const T &b) { return exp(b * log(a)); }
template <class T> complex<T> sin(const complex<T> &z) {
  return complex<T>(std::sin(z.re) * std::cosh(z.im), std::cos(z.re) * std::sinh(z.im));
}
template <class T> complex<T> cos(const complex<T> &z) {
  return complex<T>(std::cos(z.re) * std::cosh(z.im), -std::sin(z.re) * std::sinh(z.im));
}

}  // namespace thrust
