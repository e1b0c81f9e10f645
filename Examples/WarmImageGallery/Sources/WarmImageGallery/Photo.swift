import Foundation

/// One picture of the gallery: its URL (the `key:` of warm-cache.yml for the baked ones) and credit.
struct Photo: Identifiable, Hashable, Sendable {
    let url: URL
    let title: String
    let credit: String
    /// Whether warm-cache.yml bakes it; the others load from the network.
    let isBaked: Bool

    var id: URL { url }

    /// The five baked pictures (Examples/Images, LICENSES.md there) and one that is not baked.
    static let all: [Photo] = [
        Photo(baked: "coffee", title: "Coffee", credit: "CC0, Rachel Michetti"),
        Photo(baked: "chelsea", title: "Chelsea", credit: "CC0, Stefan van der Walt"),
        Photo(baked: "rocket", title: "Rocket", credit: "Public domain, SpaceX"),
        Photo(baked: "camera", title: "Camera", credit: "CC0, Lav Varshney"),
        Photo(baked: "coins", title: "Coins", credit: "No known copyright restrictions"),
        // Not in the bundle: WarmImage falls back to the network, showing the placeholder closure meanwhile.
        Photo(url: URL(string: "https://raw.githubusercontent.com/scikit-image/scikit-image/main/skimage/data/astronaut.png")!,
              title: "Astronaut (network)", credit: "Public domain, NASA; from scikit-image's sample data",
              isBaked: false),
    ]

    private init(baked key: String, title: String, credit: String) {
        self.init(url: URL(string: "asset://\(key)")!, title: title, credit: credit, isBaked: true)
    }

    private init(url: URL, title: String, credit: String, isBaked: Bool) {
        self.url = url
        self.title = title
        self.credit = credit
        self.isBaked = isBaked
    }
}
