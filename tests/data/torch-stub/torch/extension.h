/*
 * A stand-in for the few PyTorch C++ names kevo's torch export uses, so
 * CI (no torch) can compile an exported extension's CUDA source with nvcc
 * and catch a generated wrapper that does not compile. Declarations only
 * as far as compiling needs; nothing here runs. The real headers come with
 * torch (tests/gpu/export_torch.sh builds and runs the real thing).
 */
#pragma once
#include <cstdint>
#include <initializer_list>
#include <vector>
#include <cuda_runtime.h>

#define TORCH_CHECK(cond, ...) \
    do { \
        if (!(cond)) \
            throw 1; \
    } while (0)

namespace at {
enum ScalarType { kFloat, kHalf, kBFloat16, kByte };
}
namespace torch {
constexpr at::ScalarType kUInt8 = at::kByte;
struct Device {};
struct TensorOptions {
    TensorOptions dtype(at::ScalarType) const { return *this; }
};
struct Tensor {
    bool is_cuda() const;
    int64_t dim() const;
    at::ScalarType scalar_type() const;
    Tensor contiguous() const;
    int64_t size(int64_t d) const;
    void *data_ptr() const;
    TensorOptions options() const;
    Device device() const;
};
Tensor empty(std::initializer_list<int64_t> sizes, TensorOptions o);
} // namespace torch
