// `import WarmCacheUI` is all a view needs: the bundle reader and the loader come with it.
@_exported import WarmCache
@_exported import WarmCacheLoading
