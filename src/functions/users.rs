//! `userHome` and `userMap`, HTCondor's builtins over a daemon's users
//! (`compat_classad.cpp`: `userHome_func`, `userMap_func`).
//!
//! Both consult something outside the ads: `userHome` the machine's user database
//! (`getpwnam`), `userMap` the map files a daemon's configuration loads
//! (`CLASSAD_USER_MAPFILE_<name>`). We consult neither, so that an evaluation's
//! answer depends on the ads alone: a user name is one the database does not
//! know, and a map name one that is not loaded. Every answer that does not
//! depend on them is HTCondor's, argument checks and defaults included; where
//! HTCondor would find a user's home directory (HTCondor 25.14.1 looks any string
//! name up; newer releases only with `CLASSAD_ENABLE_USER_HOME`) or map a name,
//! we give what it gives for an unknown user or map (listed in
//! `tests/conformance/deviations.jsonl`).

use super::{add, Builtin, Call};
use crate::values::Fail;
use classad_vm::Value;

pub(super) fn register(t: &mut Vec<Builtin>) {
    add(t, "userHome", user_home);
    add(t, "userMap", user_map);
}

/// `userHome(name[, default])`: the default (when it is a non-empty string) or
/// undefined for a name that is a string or undefined; for any other name the
/// default, else error. A wrong argument count fails the evaluation.
fn user_home(c: &mut dyn Call) -> Result<Value, Fail> {
    if !(1..=2).contains(&c.argc()) {
        return Err(Fail);
    }
    // HTCondor takes a default that is not a non-empty string, or whose
    // evaluation fails, for no default at all.
    let default = match c.argc() {
        2 => match c.arg(1) {
            Ok(Value::Str(s)) if !s.is_empty() => Some(s),
            _ => None,
        },
        _ => None,
    };
    // The name's evaluation failing does not fail the call: HTCondor goes on
    // with what the failed evaluation left.
    let name = c.arg_lenient(0, None);
    Ok(match (name, default) {
        (_, Some(home)) => Value::Str(home),
        (Value::Undefined | Value::Str(_), None) => Value::Undefined,
        (_, None) => Value::Error,
    })
}

/// `userMap(map, name[, preferred[, default]])`: with no map loaded, the default
/// (whatever it evaluates to) in the four-argument form, else undefined; error
/// when the map or the name is error, or for fewer than two or more than four
/// arguments. An argument whose evaluation fails fails the evaluation.
fn user_map(c: &mut dyn Call) -> Result<Value, Fail> {
    let argc = c.argc();
    if !(2..=4).contains(&argc) {
        return Ok(Value::Error);
    }
    let mut args = Vec::with_capacity(argc);
    for i in 0..argc {
        args.push(c.arg(i)?);
    }
    let both_strings = matches!((&args[0], &args[1]), (Value::Str(_), Value::Str(_)));
    if !both_strings && (args[0].is_error() || args[1].is_error()) {
        return Ok(Value::Error);
    }
    // No map: HTCondor's result holds the default the fourth argument evaluated
    // to, or is undefined.
    Ok(if argc == 4 {
        args.swap_remove(3)
    } else {
        Value::Undefined
    })
}

#[cfg(test)]
mod tests {
    use crate::eval::testing::{eval, s};
    use classad_vm::Value;

    // Expected results from HTCondor 25.14.1 (`classad2`), where they do not
    // depend on the machine's users or maps.
    #[test]
    fn user_home_without_a_user_database() {
        let u = Value::Undefined;
        assert_eq!(eval("userHome", vec![u.clone(), s("/d")]), "\"/d\"");
        assert_eq!(eval("userHome", vec![s("nosuchuser"), s("/d")]), "\"/d\"");
        assert_eq!(eval("userHome", vec![s("nosuchuser")]), "undefined");
        assert_eq!(eval("userHome", vec![u.clone()]), "undefined");
        assert_eq!(eval("userHome", vec![s("")]), "undefined");
        assert_eq!(eval("userHome", vec![Value::Int(1), s("/d")]), "\"/d\"");
        assert_eq!(eval("userHome", vec![Value::Int(1)]), "error");
        assert_eq!(eval("userHome", vec![Value::Error, s("/d")]), "\"/d\"");
        assert_eq!(eval("userHome", vec![u.clone(), u.clone()]), "undefined");
        assert_eq!(eval("userHome", vec![u, Value::Int(5)]), "undefined");
        assert_eq!(eval("userHome", vec![Value::Int(1), s("")]), "error");
    }

    #[test]
    fn user_map_without_maps() {
        assert_eq!(eval("userMap", vec![s("a"), s("b")]), "undefined");
        assert_eq!(eval("userMap", vec![s("a"), s("b"), s("c")]), "undefined");
        assert_eq!(
            eval("userMap", vec![s("a"), s("b"), s("c"), s("d")]),
            "\"d\""
        );
        assert_eq!(
            eval(
                "userMap",
                vec![s("a"), s("b"), Value::Int(5), Value::Int(7)]
            ),
            "7"
        );
        assert_eq!(eval("userMap", vec![Value::Undefined, s("b")]), "undefined");
        assert_eq!(
            eval("userMap", vec![Value::Int(1), s("b"), s("c")]),
            "undefined"
        );
        assert_eq!(eval("userMap", vec![Value::Error, s("b")]), "error");
        assert_eq!(eval("userMap", vec![s("a")]), "error");
        assert_eq!(
            eval("userMap", vec![s("a"), Value::Error, s("c"), s("d")]),
            "error"
        );
    }
}
