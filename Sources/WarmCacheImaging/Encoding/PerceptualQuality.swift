/// Perceptual quality: encoding each variant at the lowest encoder quality whose SSIMULACRA2
/// score (against the variant's unencoded pixels) reaches a target.
public enum PerceptualQuality {
    /// The target when a manifest sets none: see `docs/imaging.md` ("Perceptual quality") for
    /// how it was chosen against sharp's default JPEG.
    public static let defaultTarget = 80
    /// The targets a manifest may ask for.
    public static let targetRange = 30...100
}
