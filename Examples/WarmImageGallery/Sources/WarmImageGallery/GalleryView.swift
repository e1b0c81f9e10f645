import SwiftUI
import WarmCacheUI

/// A grid of square thumbnails; tapping one opens it large.
struct GalleryView: View {
    @State private var hero: Photo?
    private let columns = [GridItem(.adaptive(minimum: 140, maximum: 200), spacing: 8)]

    var body: some View {
        NavigationStack {
            ScrollView {
                LazyVGrid(columns: columns, spacing: 8) {
                    ForEach(Photo.all) { photo in
                        Button { hero = photo } label: { Thumbnail(photo: photo) }
                            .buttonStyle(.plain)
                    }
                }
                .padding(8)
            }
            .navigationTitle("WarmImage Gallery")
            .sheet(item: $hero) { photo in
                HeroView(photo: photo)
            }
        }
    }
}

/// One grid cell: the content/placeholder initialiser, as most `AsyncImage` code is written.
struct Thumbnail: View {
    let photo: Photo

    var body: some View {
        // A baked picture's first frame is its ThumbHash, passed to the content closure (so it is
        // filled and clipped like the image); `ProgressView` shows only for the network picture.
        WarmImage(url: photo.url) { image in
            image.resizable().scaledToFill()
        } placeholder: {
            ProgressView()
        }
        // The grid proposes a width and no height: the aspect ratio makes the cell square.
        .aspectRatio(1, contentMode: .fit)
        .clipShape(RoundedRectangle(cornerRadius: 8))
        .overlay(alignment: .bottomLeading) {
            Text(photo.title)
                .font(.caption)
                .padding(4)
                .background(.thinMaterial, in: RoundedRectangle(cornerRadius: 4))
                .padding(6)
        }
        .contentShape(Rectangle())
    }
}

/// The picture as large as the sheet allows: the phase initialiser, with a transaction.
struct HeroView: View {
    let photo: Photo
    @Environment(\.dismiss) private var dismiss

    var body: some View {
        VStack(spacing: 12) {
            WarmImage(url: photo.url, transaction: Transaction(animation: .easeInOut(duration: 0.3))) { phase in
                switch phase {
                case .success(let image):
                    image.resizable().scaledToFit()
                case .failure(let error):
                    Text(String(describing: error))
                        .multilineTextAlignment(.center)
                        .padding()
                case .empty:
                    // Drawn over the baked placeholder, which WarmImage draws behind `.empty`.
                    ProgressView()
                }
            }
            Text("\(photo.title): \(photo.credit)\(photo.isBaked ? "" : " (not baked: from the network)")")
                .font(.footnote)
            Button("Close") { dismiss() }
        }
        .padding()
        .frame(minWidth: 420, minHeight: 480)
    }
}
