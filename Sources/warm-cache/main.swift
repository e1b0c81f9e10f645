print("warm-cache")
