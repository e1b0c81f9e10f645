// The eight-lane kernels of SSIMULACRA 2 (see SSIMULACRA2.swift for the reference and its licence).

import CVipsShim

extension SSIMULACRA2 {
    /// The eight-lane kernels of the hottest loops (`CVipsShim/scoring.c`, x86-64 with AVX2).
    ///
    /// Swift's portable vectors stop at four lanes on x86-64 without build flags that packages
    /// cannot set, so the XYB conversion, the vertical blur and the error maps run in C eight
    /// lanes at a time where the processor can. They make the same single-precision operations in
    /// the same order on every lane, without fused multiply-adds, and sum in the same order: a
    /// score is the same bit for bit on either path (the tests compare them), only faster.
    enum Wide {
        /// Whether this processor runs them.
        static let available = wc_cpu_wide() != 0

        /// The XYB conversion's constants as `wc_xyb_convert8` takes them: the opsin matrix by rows,
        /// the bias and minus its cube root (the Swift code's own values, so both paths use the same).
        nonisolated(unsafe) static let xybConstants: UnsafeMutablePointer<Float> = {
            let values: [Float] = [XYB.m00, XYB.m01, XYB.m02, XYB.m10, XYB.m11, XYB.m12, XYB.m20, XYB.m21, XYB.m22,
                                   XYB.bias, -XYB.biasCubeRoot]
            let pointer = UnsafeMutablePointer<Float>.allocate(capacity: values.count)
            pointer.initialize(from: values, count: values.count)
            return pointer
        }()

        /// The recursive Gaussian's n2 and d1 for k = 1, 3, 5, as `wc_gaussian_columns8` takes them.
        nonisolated(unsafe) static let gaussianCoefficients: UnsafeMutablePointer<Float> = {
            let c = RecursiveGaussian.coefficients
            let values: [Float] = c.n2 + c.d1
            let pointer = UnsafeMutablePointer<Float>.allocate(capacity: values.count)
            pointer.initialize(from: values, count: values.count)
            return pointer
        }()
    }
}
