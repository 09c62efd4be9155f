//! The plan's JSON Schema, for model structured output: derived from the plan's types by
//! schemars (feature `schema`), then made strict — every object closed, every property
//! required (nullable where the field is optional; lists and flags required as such), as
//! OpenAI's strict mode demands and Anthropic's tool input accepts — and compact (no titles,
//! descriptions or formats: the prompt explains the plan). The derivation needs schemars,
//! which the browser does without, so the strict text is generated into `plan.schema.json`
//! and compiled in; a test holds the file to what the types derive (`NL2SQL_BLESS=1`
//! rewrites it).

use serde_json::Value;

const SCHEMA: &str = include_str!("plan.schema.json");

/// The schema of a plan, as sent to the model.
pub fn plan_json_schema() -> Value {
    // Compiled in and held by a test to what the types derive, so it always reads.
    serde_json::from_str(SCHEMA).unwrap_or_default()
}

#[cfg(all(test, feature = "schema"))]
mod tests {
    use serde_json::Value;

    /// The strict schema the plan's types derive now (what `plan.schema.json` must hold).
    fn derived_plan_schema() -> Value {
        let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
        let mut schema = generator.into_root_schema_for::<crate::Plan>().to_value();
        strict(&mut schema);
        inline_single_uses(&mut schema);
        // Once more: an inlined definition may now merge with the alternative beside it.
        strict(&mut schema);
        schema
    }

    /// Puts every definition used once (and every list of names) where it is used, so the
    /// schema reads top-down and costs fewer tokens; the recursive ones stay definitions.
    fn inline_single_uses(schema: &mut Value) {
        let Some(Value::Object(defs)) = schema.get("$defs").cloned() else {
            return;
        };
        let text = schema.to_string();
        let inline: Vec<String> = defs
            .iter()
            .filter(|(name, def)| {
                let uses = text.matches(&format!("\"#/$defs/{name}\"")).count();
                let recursive = def.to_string().contains(&format!("\"#/$defs/{name}\""));
                !recursive
                    && (uses == 1
                        || def.get("enum").is_some()
                        || def.get("type").is_some_and(Value::is_array))
            })
            .map(|(name, _)| name.clone())
            .collect();
        fn replace(value: &mut Value, defs: &serde_json::Map<String, Value>, inline: &[String]) {
            if let Some(Value::String(target)) = value.get("$ref") {
                if let Some(name) = target.strip_prefix("#/$defs/") {
                    if inline.iter().any(|n| n == name) {
                        *value = defs[name].clone();
                        replace(value, defs, inline);
                        return;
                    }
                }
            }
            match value {
                Value::Object(map) => map.values_mut().for_each(|v| replace(v, defs, inline)),
                Value::Array(items) => items.iter_mut().for_each(|v| replace(v, defs, inline)),
                _ => {}
            }
        }
        replace(schema, &defs, &inline);
        if let Some(Value::Object(kept)) = schema.get_mut("$defs") {
            kept.retain(|name, _| !inline.contains(name));
        }
    }

    /// Makes a derived schema strict and compact, in place.
    fn strict(schema: &mut Value) {
        let Value::Object(map) = schema else {
            if let Value::Array(items) = schema {
                items.iter_mut().for_each(strict);
            }
            return;
        };
        // Children first, so each rule below sees them already compact.
        for value in map.values_mut() {
            strict(value);
        }
        for key in [
            "$schema",
            "title",
            "description",
            "format",
            "minimum",
            "maximum",
            "default",
            "minItems",
        ] {
            map.remove(key);
        }
        if let Some(alternatives) = map.remove("oneOf") {
            map.insert("anyOf".into(), alternatives);
        }
        if let Some(Value::Array(alternatives)) = map.get("anyOf") {
            // Alternatives that are each one string constant are an enum.
            let names: Option<Vec<Value>> = alternatives
                .iter()
                .map(|a| {
                    match (
                        a.get("const"),
                        a.get("type"),
                        a.as_object().map(|o| o.len()),
                    ) {
                        (Some(name), Some(Value::String(t)), Some(2)) if t == "string" => {
                            Some(name.clone())
                        }
                        _ => None,
                    }
                })
                .collect();
            // `anyOf: [{type: t}, {type: null}]` says no more than `type: [t, null]`.
            let types: Option<Vec<Value>> = alternatives
                .iter()
                .map(|a| match (a.get("type"), a.as_object().map(|o| o.len())) {
                    (Some(Value::String(t)), Some(1)) => Some(vec![Value::String(t.clone())]),
                    (Some(Value::Array(ts)), Some(1)) => Some(ts.clone()),
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()
                .map(|lists| lists.concat());
            // `anyOf: [{enum: [a, b], type: string}, {type: null}]` is an enum with null.
            let nullable_enum = match alternatives.as_slice() {
                [e, n]
                    if n.get("type") == Some(&Value::String("null".into()))
                        && n.as_object().map(|o| o.len()) == Some(1)
                        && e.get("type") == Some(&Value::String("string".into()))
                        && e.as_object().map(|o| o.len()) == Some(2) =>
                {
                    e.get("enum").and_then(Value::as_array).cloned()
                }
                _ => None,
            };
            if let Some(names) = names {
                map.remove("anyOf");
                map.insert("type".into(), Value::String("string".into()));
                map.insert("enum".into(), Value::Array(names));
            } else if let Some(types) = types {
                map.remove("anyOf");
                map.insert("type".into(), Value::Array(types));
            } else if let Some(mut names) = nullable_enum {
                names.push(Value::Null);
                map.remove("anyOf");
                map.insert("type".into(), serde_json::json!(["string", "null"]));
                map.insert("enum".into(), Value::Array(names));
            }
        }
        if let Some(Value::Object(properties)) = map.get("properties") {
            let names: Vec<Value> = properties.keys().cloned().map(Value::String).collect();
            map.insert("required".into(), Value::Array(names));
            map.insert("additionalProperties".into(), Value::Bool(false));
            map.remove("unevaluatedProperties");
        }
    }

    #[test]
    fn the_schema_file_is_what_the_types_derive() {
        let derived = derived_plan_schema();
        let text = serde_json::to_string_pretty(&derived).unwrap() + "\n";
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/plan.schema.json");
        if std::env::var_os("NL2SQL_BLESS").is_some() {
            std::fs::write(path, &text).unwrap();
        }
        assert!(
            super::SCHEMA == text,
            "plan.schema.json is stale: run with NL2SQL_BLESS=1 and read the diff"
        );
    }
}
