// Package schemaform turns a tool's input JSON Schema into a form model:
// a tree of fields a UI renders, the user fills, and the package turns
// back into the JSON arguments of a call, validated against the schema.
//
// Compile handles what real tool schemas contain: nested objects, arrays
// (of scalars and of objects), enums, const, oneOf/anyOf as a variant
// chooser (the nullable pairs anyOf [X, null] and type [X, "null"] as a
// field that may be null), local $ref/$defs (recursion stays collapsed
// until expanded), allOf (merged), defaults, required, formats, numeric
// and string bounds, and additionalProperties as free key/value rows.
// What it cannot show as fields (if/then/else, not, patternProperties,
// dependentSchemas, tuples) becomes a raw-JSON field that says why, and
// the whole form can switch to raw JSON and back when the value fits.
//
// Guarantees:
//
//   - Value gives exactly what the fields hold: set fields, consts of the
//     objects that go in, and defaults the user left in place; an unset
//     optional field is left out. Errors come back at instance locations
//     (JSON pointers): parse errors of fields ("not a number") and every
//     violation the validator (santhosh-tekuri/jsonschema, formats
//     asserted) finds, each on the field it concerns.
//   - Prefill fills only fields whose names map to the page context
//     (Mappings), only when the user has not typed there, and marks each
//     with where it came from; the value stays editable.
//   - A field naming what an action acts on (Field.Target) and an
//     inferred field are never Folded away.
//
// The package is pure Go and builds for js/wasm; it does no I/O.
package schemaform
