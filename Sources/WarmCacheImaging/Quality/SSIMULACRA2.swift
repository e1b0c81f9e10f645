// SSIMULACRA 2.1, a pure-Swift port of the reference implementation.
//
// Reference: `tools/ssimulacra2.cc` in libjxl, published identically as `src/ssimulacra2.cc` in
// https://github.com/cloudinary/ssimulacra2 (version 2.1), with the recursive Gaussian of libjxl's
// `lib/jxl/gauss_blur.cc` and the XYB transform of `lib/jxl/enc_xyb.cc`. This file is a new
// implementation of that published algorithm; the 108 weights and the constants of the final
// mapping in `SSIMULACRA2.score(of:)` are taken from the reference, whose notice follows:
//
//   Copyright (c) Jon Sneyers, Cloudinary. All rights reserved.
//   Copyright (c) the JPEG XL Project Authors. All rights reserved.
//
//   Redistribution and use in source and binary forms, with or without modification, are permitted
//   provided that the following conditions are met:
//   1. Redistributions of source code must retain the above copyright notice, this list of
//      conditions and the following disclaimer.
//   2. Redistributions in binary form must reproduce the above copyright notice, this list of
//      conditions and the following disclaimer in the documentation and/or other materials provided
//      with the distribution.
//   3. Neither the name of the copyright holder nor the names of its contributors may be used to
//      endorse or promote products derived from this software without specific prior written
//      permission.
//
//   THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS" AND ANY EXPRESS OR
//   IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE IMPLIED WARRANTIES OF MERCHANTABILITY AND
//   FITNESS FOR A PARTICULAR PURPOSE ARE DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR
//   CONTRIBUTORS BE LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL
//   DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR SERVICES; LOSS OF USE,
//   DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER CAUSED AND ON ANY THEORY OF LIABILITY,
//   WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY
//   WAY OUT OF THE USE OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.

import Foundation

/// SSIMULACRA 2 ("Structural SIMilarity Unveiling Local And Compression Related Artifacts"), a
/// full-reference perceptual metric by Jon Sneyers (Cloudinary): how much a distorted image (an
/// encoding, say) looks like its original.
///
/// The score is 100 for identical pixels and falls as the damage grows; it can go below zero for
/// very strong distortion. The reference tool describes the scale by what an observer sees:
///
/// | score | quality |
/// | --- | --- |
/// | 90 | visually lossless: no difference in a flicker test at 1:1 |
/// | 85 | excellent: no difference in a flip test |
/// | 80 | very high: no difference side by side at 1:1 |
/// | 70 | high: artifacts hard to notice without the original next to it |
/// | 50 | medium |
/// | 30 | low |
/// | 10 | very low |
///
/// How it works (the reference's design, which this port follows step by step):
/// 1. Both images go from sRGB to linear light, then to XYB, the colour space of JPEG XL: an LMS-like
///    mix of R, G, B plus a small bias, a cube root, then X = (L−M)/2, Y = (L+M)/2, B. The planes are
///    shifted and scaled into roughly 0...1 and B is replaced by B−Y.
/// 2. At six scales (1:1 to 1:32, each one a 2×2 box average of the previous one, in linear RGB), and
///    for each of X, Y, B, three error maps are computed from Gaussian-blurred statistics (σ = 1.5,
///    libjxl's recursive approximation of a Gaussian, zero outside the image):
///    - SSIM without its luminance-ratio denominator, as an error `1 − SSIM'`: the structure and
///      contrast terms of SSIM times `1 − (μ1 − μ2)²`;
///    - ringing or blocking: where the distorted image has edges (`|x − μ|`) the original lacks;
///    - blurring: where the original has edges the distorted image lost.
/// 3. Each of those 54 maps is pooled with the mean (1-norm) and the 4-norm, the 108 numbers are
///    combined with weights fitted to subjective scores, and a polynomial and a power map the sum to
///    the score.
///
/// Transparency follows the reference tool: an image with alpha is composited (in sRGB, before
/// linearising) over a grey background; when the original has an alpha channel, the score is the
/// worse of the two scores over a dark (0.1) and a light (0.9) grey, so errors hidden by one
/// background show on the other. See ``SSIMULACRA2Reference``.
package enum SSIMULACRA2 {
    /// Scores `distorted` against `reference` (same size). When several candidates are scored
    /// against one original, build an ``SSIMULACRA2Reference`` once instead.
    package static func score(reference: SSIMULACRA2Image, distorted: SSIMULACRA2Image) -> Double {
        SSIMULACRA2Reference(reference).score(distorted)
    }

    /// The number of scales: 1:1, 1:2, ... 1:32.
    static let scaleCount = 6

    /// The smallest width and height the reference computes a scale from.
    static let minimumSide = 8

    /// Maps the pooled error norms of every computed scale to the 0...100 score.
    ///
    /// As in the reference, the index into the weights advances only over the scales that were
    /// computed: for an image too small for all six scales (a side shorter than 113 pixels), the Y
    /// and B channels use weights from the blocks tuned for earlier channels.
    static func score(of scales: [ScaleNorms]) -> Double {
        var sum = 0.0
        var index = 0
        for channel in 0..<3 {
            for scale in scales {
                for norm in 0..<2 {
                    sum += weights[index] * abs(scale.ssim[channel * 2 + norm])
                    sum += weights[index + 1] * abs(scale.edge[channel * 4 + norm])
                    sum += weights[index + 2] * abs(scale.edge[channel * 4 + 2 + norm])
                    index += 3
                }
            }
        }
        sum *= 0.9562382616834844
        sum = 2.326765642916932 * sum - 0.020884521182843837 * sum * sum
            + 6.248496625763138e-05 * sum * sum * sum
        return sum > 0 ? 100 - 10 * pow(sum, 0.6276336467831387) : 100
    }

    /// Which of a channel's error maps at one scale count towards the score.
    ///
    /// The reference's weights are zero for many norms: at the first scale, by far the most
    /// expensive, X and B count only through their ringing map, and at the sixth Y counts not at
    /// all. A map whose norms all weigh zero adds exactly zero to the score, so it need not be
    /// computed: without the SSIM map, a channel needs only its blurred values (not the blurred
    /// squares and products), and without any map nothing at all. Scores are bit for bit the same.
    enum MapsNeeded: Sendable {
        case none
        /// The ringing and blurring maps, which need the blurred values only.
        case edges
        /// The SSIM map as well, which needs the blurred squares and products too.
        case all

        /// What `channel` needs at scale `scale` of `scaleCount` computed scales. The weights'
        /// index advances only over computed scales (``score(of:)``), so this depends on the count.
        static func of(channel: Int, scale: Int, scaleCount: Int) -> MapsNeeded {
            let first = (channel * scaleCount + scale) * 6  // per norm (1, 4): SSIM, ringing, blurring
            if weights[first] != 0 || weights[first + 3] != 0 { return .all }
            if [1, 2, 4, 5].contains(where: { weights[first + $0] != 0 }) { return .edges }
            return .none
        }
    }

    /// The pooled error norms of one scale: per channel, the 1-norm and 4-norm of the SSIM error map,
    /// and of the ringing and blurring maps.
    struct ScaleNorms: Sendable {
        /// `[channel * 2 + norm]`: norm 0 is the mean, 1 the 4-norm.
        var ssim = [Double](repeating: 0, count: 6)
        /// `[channel * 4 + k]`: k = 0, 1 ringing (mean, 4-norm), 2, 3 blurring (mean, 4-norm).
        var edge = [Double](repeating: 0, count: 12)
    }

    /// The reference's 108 weights, in the order channel (X, Y, B) → scale → norm (1, 4) → map
    /// (SSIM, ringing, blurring).
    static let weights: [Double] = [
        0.0, 0.0007376606707406586, 0.0, 0.0, 0.0007793481682867309, 0.0,
        0.0, 0.0004371155730107379, 0.0, 1.1041726426657346, 0.00066284834129271, 0.00015231632783718752,
        0.0, 0.0016406437456599754, 0.0, 1.8422455520539298, 11.441172603757666, 0.0,
        0.0007989109436015163, 0.000176816438078653, 0.0, 1.8787594979546387, 10.94906990605142, 0.0,
        0.0007289346991508072, 0.9677937080626833, 0.0, 0.00014003424285435884, 0.9981766977854967,
        0.00031949755934435053,
        0.0004550992113792063, 0.0, 0.0, 0.0013648766163243398, 0.0, 0.0,
        0.0, 0.0, 0.0, 7.466890328078848, 0.0, 17.445833984131262,
        0.0006235601634041466, 0.0, 0.0, 6.683678146179332, 0.00037724407979611296, 1.027889937768264,
        225.20515300849274, 0.0, 0.0, 19.213238186143016, 0.0011401524586618361, 0.001237755635509985,
        176.39317598450694, 0.0, 0.0, 24.43300999870476, 0.28520802612117757, 0.0004485436923833408,
        0.0, 0.0, 0.0, 34.77906344483772, 44.835625328877896, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0008680556573291698, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0005313191874358747, 0.0, 0.00016533814161379112, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0004179171803251336, 0.0017290828234722833, 0.0,
        0.0020827005846636437, 0.0, 0.0, 8.826982764996862, 23.19243343998926, 0.0,
        95.1080498811086, 0.9863978034400682, 0.9834382792465353, 0.0012286405048278493, 171.2667255897307,
        0.9807858872435379,
        0.0, 0.0, 0.0, 0.0005130064588990679, 0.0, 0.00010854057858411537,
    ]
}

/// 8-bit sRGB pixels to score: interleaved RGB or RGBA (alpha not premultiplied), row by row, with
/// no padding between rows.
package struct SSIMULACRA2Image: Sendable {
    package let width: Int
    package let height: Int
    /// 3 (RGB) or 4 (RGBA).
    package let channels: Int
    package let pixels: [UInt8]

    /// - Precondition: `width` and `height` are at least 1, `channels` is 3 or 4, and `pixels` holds
    ///   `width × height × channels` bytes.
    package init(width: Int, height: Int, channels: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0, "cannot score an empty \(width)x\(height) image")
        precondition(channels == 3 || channels == 4, "SSIMULACRA 2 takes RGB or RGBA, not \(channels) channels")
        precondition(pixels.count == width * height * channels,
                     "\(width)x\(height) pixels of \(channels) channels take \(width * height * channels) bytes, "
                         + "not \(pixels.count)")
        self.width = width
        self.height = height
        self.channels = channels
        self.pixels = pixels
    }

    /// Whether the image has an alpha channel (even a fully opaque one, as the reference tool sees it).
    var hasAlpha: Bool { channels == 4 }

    /// Whether compositing changes nothing: no alpha channel, or every alpha is 255.
    var isOpaque: Bool {
        guard hasAlpha else { return true }
        return pixels.withUnsafeBufferPointer { bytes in
            var index = 3
            while index < bytes.count {
                if bytes[index] != 255 { return false }
                index += 4
            }
            return true
        }
    }

    /// The image enlarged `factor` times by repeating pixels (nearest neighbour).
    func repeated(by factor: Int) -> SSIMULACRA2Image {
        if factor == 1 { return self }
        let newWidth = width * factor, newHeight = height * factor
        var output = [UInt8](repeating: 0, count: newWidth * newHeight * channels)
        for y in 0..<newHeight {
            for x in 0..<newWidth {
                let source = ((y / factor) * width + x / factor) * channels
                let target = (y * newWidth + x) * channels
                for channel in 0..<channels { output[target + channel] = pixels[source + channel] }
            }
        }
        return SSIMULACRA2Image(width: newWidth, height: newHeight, channels: channels, pixels: output)
    }
}
