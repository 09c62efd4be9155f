//! Whether a JSON value is an instance of the plan's model schema (`plan.schema.json`), for
//! the keywords that schema uses: `$ref`, `anyOf`, `const`, `enum`, `type`, `properties`,
//! `required`, `additionalProperties: false` and `items`. The plan's compact form leaves
//! defaults out, and the strict schema requires every key a model must send, so
//! [`completed`] puts each missing key back with the value its absence means first.

use serde_json::{Map, Value};

/// `instance` with every property the schema requires and the instance leaves out filled
/// in with what its absence means: null, an empty list, false, or the first enum value.
pub fn completed(schema: &Value, instance: &Value) -> Value {
    completed_at(schema, schema, instance)
}

fn completed_at(root: &Value, schema: &Value, instance: &Value) -> Value {
    let schema = resolved(root, schema);
    if let Some(options) = schema.get("anyOf").and_then(Value::as_array) {
        // The option the instance is meant for: the one whose `kind` it names, else the
        // first that admits it once completed.
        for option in options {
            let filled = completed_at(root, option, instance);
            if admits(root, option, &filled).is_ok() {
                return filled;
            }
        }
        return instance.clone();
    }
    match instance {
        Value::Object(object) => {
            let mut out = Map::new();
            let properties = schema.get("properties").and_then(Value::as_object);
            for (key, value) in object {
                let inner = properties.and_then(|p| p.get(key));
                out.insert(
                    key.clone(),
                    inner.map_or(value.clone(), |s| completed_at(root, s, value)),
                );
            }
            for key in required(schema) {
                if !out.contains_key(key) {
                    let inner = properties.and_then(|p| p.get(key)).unwrap_or(&Value::Null);
                    out.insert(key.to_string(), absent(root, inner));
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => match schema.get("items") {
            Some(item) => Value::Array(items.iter().map(|i| completed_at(root, item, i)).collect()),
            None => instance.clone(),
        },
        other => other.clone(),
    }
}

/// What a left-out property of schema `s` stands for.
fn absent(root: &Value, s: &Value) -> Value {
    let s = resolved(root, s);
    if admits(root, s, &Value::Null).is_ok() {
        return Value::Null;
    }
    if let Some(first) = s
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    match s.get("type").and_then(Value::as_str) {
        Some("array") => Value::Array(Vec::new()),
        Some("boolean") => Value::Bool(false),
        _ => Value::Null,
    }
}

fn required(schema: &Value) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn resolved<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => r
            .strip_prefix("#/$defs/")
            .and_then(|name| root.get("$defs").and_then(|d| d.get(name)))
            .unwrap_or(&Value::Null),
        None => schema,
    }
}

/// Ok when `instance` is an instance of `schema` (a part of `root`), else where and why not.
pub fn admits(root: &Value, schema: &Value, instance: &Value) -> Result<(), String> {
    let schema = resolved(root, schema);
    if let Some(options) = schema.get("anyOf").and_then(Value::as_array) {
        let mut why = Vec::new();
        for option in options {
            match admits(root, option, instance) {
                Ok(()) => return Ok(()),
                Err(e) => why.push(e),
            }
        }
        return Err(format!("no option admits {instance}: {}", why.join(" | ")));
    }
    if let Some(c) = schema.get("const") {
        if c != instance {
            return Err(format!("{instance} is not {c}"));
        }
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        if !values.contains(instance) {
            return Err(format!("{instance} is not one of {values:?}"));
        }
    }
    if let Some(t) = schema.get("type") {
        let types: Vec<&str> = match t {
            Value::String(one) => vec![one.as_str()],
            Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !types.iter().any(|t| is_type(t, instance)) {
            return Err(format!("{instance} is not of type {t}"));
        }
    }
    if let Value::Object(object) = instance {
        let properties = schema.get("properties").and_then(Value::as_object);
        for key in required(schema) {
            if !object.contains_key(key) {
                return Err(format!("{key} is required in {instance}"));
            }
        }
        for (key, value) in object {
            match properties.and_then(|p| p.get(key)) {
                Some(inner) => admits(root, inner, value).map_err(|e| format!("{key}.{e}"))?,
                None if schema.get("additionalProperties") == Some(&Value::Bool(false)) => {
                    return Err(format!("{key} is not a property here"))
                }
                None => {}
            }
        }
    }
    if let (Value::Array(items), Some(item)) = (instance, schema.get("items")) {
        for (i, value) in items.iter().enumerate() {
            admits(root, item, value).map_err(|e| format!("[{i}].{e}"))?;
        }
    }
    Ok(())
}

fn is_type(t: &str, v: &Value) -> bool {
    match t {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "string" => v.is_string(),
        "number" => v.is_number(),
        "integer" => v.as_i64().is_some() || v.as_u64().is_some(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        _ => false,
    }
}
