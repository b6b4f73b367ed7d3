#pragma once
/// @file lievi/core/state_io.hpp
/// @brief One visitor that saves or restores a component's carried state, for checkpoints.
///
/// A component (a stepper core, a run loop's accumulators, an observer) names every number its next step reads
/// in one member function, `template <class A> void state(A& a)` or `void checkpoint(StateIO& a)`, calling
/// `a("name", member)` for each; the same function saves (the visitor copies the members out) and restores
/// (the visitor copies them in). Sizes are those of the freshly built component: restoring checks them, so a
/// checkpoint of another grid or method is refused rather than read into the wrong places. Names are scoped by
/// `StateIO::Scope` ("stepper/c", "observer.series/bytes", ...). No I/O here: io::Checkpoint implements it.
#include <Eigen/Core>
#include <array>
#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

namespace lievi {

/// How many doubles a value type of a field holds, stored contiguously (for saving whole fields): double, a
/// fixed-size Eigen matrix of doubles, and types that specialise it (lie::SE3).
template <class T>
struct StateDoubles;
template <>
struct StateDoubles<double> {
  static constexpr std::size_t value = 1;
};
template <int R, int C, int O, int MR, int MC>
struct StateDoubles<Eigen::Matrix<double, R, C, O, MR, MC>> {
  static_assert(R > 0 && C > 0, "fixed-size matrices only");
  static constexpr std::size_t value = static_cast<std::size_t>(R) * static_cast<std::size_t>(C);
};

class StateIO {
 public:
  virtual ~StateIO() = default;
  /// true: the visitor restores (writes into the members); false: it saves (reads them).
  [[nodiscard]] virtual bool restoring() const = 0;
  /// n doubles at `data` under `name` (prefixed by the open scopes).
  virtual void doubles(const std::string& name, double* data, std::size_t n) = 0;
  /// n integers at `data` under `name`.
  virtual void integers(const std::string& name, long long* data, std::size_t n) = 0;

  void operator()(const std::string& name, double& x) { doubles(name, &x, 1); }
  void operator()(const std::string& name, long long& x) { integers(name, &x, 1); }
  void operator()(const std::string& name, long& x) { narrow(name, x); }
  void operator()(const std::string& name, int& x) { narrow(name, x); }
  void operator()(const std::string& name, bool& x) { narrow(name, x); }
  void operator()(const std::string& name, std::vector<double>& v) { doubles(name, v.data(), v.size()); }
  template <std::size_t N>
  void operator()(const std::string& name, std::array<double, N>& v) {
    doubles(name, v.data(), N);
  }
  /// A dense Eigen matrix or vector of doubles (fixed or dynamic size, contiguous storage).
  template <class Derived>
    requires std::is_same_v<typename Derived::Scalar, double>
  void operator()(const std::string& name, Eigen::PlainObjectBase<Derived>& m) {
    doubles(name, m.data(), static_cast<std::size_t>(m.size()));
  }
  /// n values of a field type (StateDoubles) stored contiguously from `data`.
  template <class T>
  void values(const std::string& name, T* data, std::size_t n) {
    constexpr std::size_t k = StateDoubles<T>::value;
    static_assert(sizeof(T) == k * sizeof(double), "a field value must be its doubles, without padding");
    doubles(name, reinterpret_cast<double*>(data), n * k);
  }
  /// An array of Eigen matrices (e.g. a method's stages).
  template <class M, std::size_t N>
  void operator()(const std::string& name, std::array<M, N>& a) {
    for (std::size_t i = 0; i < N; ++i) (*this)(name + "[" + std::to_string(i) + "]", a[i]);
  }

  /// Prefix the names visited while it lives with `prefix` + "/".
  class Scope {
   public:
    Scope(StateIO& io, const std::string& prefix) : io_(io), size_(io.prefix_.size()) { io.prefix_ += prefix + "/"; }
    ~Scope() { io_.prefix_.resize(size_); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    StateIO& io_;
    std::size_t size_;
  };

 protected:
  /// The full name of `name` under the open scopes.
  [[nodiscard]] std::string full(const std::string& name) const { return prefix_ + name; }

 private:
  template <class T>
  void narrow(const std::string& name, T& x) {
    long long v = static_cast<long long>(x);
    integers(name, &v, 1);
    if (restoring()) x = static_cast<T>(v);
  }
  std::string prefix_;
};

}  // namespace lievi
