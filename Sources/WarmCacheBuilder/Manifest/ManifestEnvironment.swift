/// `${NAME}` substitution from the process environment, as in shells and Compose files.
///
/// - `${NAME}`: the variable's value; an unset variable is an error (set-but-empty is allowed).
/// - `${NAME:-default}`: the default when the variable is unset or empty.
/// - `$$`: a literal `$` (so `$${NAME}` stays `${NAME}`). Any other `$` is kept as written.
///
/// Names are letters, digits and `_`, not starting with a digit. Substituted values can be
/// secrets: problems are reported with variable names and offsets only, never with values.
struct ManifestEnvironment {
    let variables: [String: String]

    /// What went wrong at `offset` (in Unicode scalars from the start of the text, pointing at `$`).
    struct Problem: Equatable {
        enum Kind: Error, Equatable {
            case unset(name: String)
            case malformed(reason: String)
        }
        var kind: Kind
        var offset: Int
    }

    /// The substituted text, or every problem in it.
    func substitute(_ text: String) -> Result<String, ProblemList> {
        let scalars = Array(text.unicodeScalars)
        var output = String.UnicodeScalarView()
        var problems: [Problem] = []
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            guard scalar == "$", index + 1 < scalars.count, scalars[index + 1] == "$" || scalars[index + 1] == "{" else {
                output.append(scalar)
                index += 1
                continue
            }
            if scalars[index + 1] == "$" {
                output.append("$")
                index += 2
                continue
            }
            guard let close = scalars[(index + 2)...].firstIndex(of: "}") else {
                problems.append(Problem(kind: .malformed(reason: "unclosed '${' (add the closing '}')"), offset: index))
                break
            }
            let body = String(String.UnicodeScalarView(scalars[(index + 2)..<close]))
            switch expand(body) {
            case .success(let value): output.append(contentsOf: value.unicodeScalars)
            case .failure(let kind): problems.append(Problem(kind: kind, offset: index))
            }
            index = close + 1
        }
        return problems.isEmpty ? .success(String(output)) : .failure(ProblemList(problems: problems))
    }

    /// The problems of one text, as an `Error` so they travel in a `Result`.
    struct ProblemList: Error, Equatable {
        var problems: [Problem]
    }

    private func expand(_ body: String) -> Result<String, Problem.Kind> {
        let name: String
        let fallback: String?
        if let separator = body.range(of: ":-") {
            name = String(body[..<separator.lowerBound])
            fallback = String(body[separator.upperBound...])
        } else {
            name = body
            fallback = nil
        }
        guard Self.isValidName(name) else {
            return .failure(.malformed(reason: "invalid variable name '\(name)' (names use letters, digits and '_',"
                                       + " and do not start with a digit)"))
        }
        if let fallback {
            let value = variables[name] ?? ""
            return .success(value.isEmpty ? fallback : value)
        }
        guard let value = variables[name] else { return .failure(.unset(name: name)) }
        return .success(value)
    }

    static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }
    }

    /// Whether `text` uses substitution syntax at all (for places that do not support it).
    static func containsReference(_ text: String) -> Bool {
        text.contains("${")
    }
}
