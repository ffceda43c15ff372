//! The builtin functions the generator calls, grouped by family, with the kind of
//! argument each position usually wants (so most calls get past their type checks
//! and reach the interesting code), and the calls whose raw result depends on the
//! clock or a random source (generated only inside deterministic wrappers).

/// Builtin families, one per `src/functions/*.rs` module that registers functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    /// `core.rs`: `ifThenElse` and the type tests.
    Core,
    /// `convert.rs`: `int`, `real`, `string`, `bool`.
    Convert,
    /// `math.rs`: rounding, `pow`, `quantize`, `random`.
    Math,
    /// `strings.rs`: `strcat`, `substr`, `size`, ...
    Strings,
    /// `version.rs`: `versioncmp` and friends.
    Version,
    /// `lists.rs`: `member`, `sum`, `anyCompare`, `evalInEachContext`, ...
    Lists,
    /// `time.rs`: `absTime`, `splitTime`, `formatTime`, `getYear`, ...
    Time,
    /// `regex.rs`: `regexp`, `regexps`, `replace`, ...
    Regex,
    /// `stringlist.rs`: `split`, `stringList*`, ...
    StringList,
    /// `env_args.rs`: environment and argument strings.
    EnvArgs,
    /// `introspect.rs`: `eval`, `unparse`, `unresolved`, `debug`.
    Introspect,
    /// `users.rs`: `userHome`, `userMap`.
    Users,
}

/// Every family, for coverage checks.
pub const FAMILIES: [Family; 12] = [
    Family::Core,
    Family::Convert,
    Family::Math,
    Family::Strings,
    Family::Version,
    Family::Lists,
    Family::Time,
    Regex,
    Family::StringList,
    Family::EnvArgs,
    Family::Introspect,
    Family::Users,
];

/// What an argument position usually wants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    /// Any expression.
    Any,
    /// A number.
    Num,
    /// An integer.
    Int,
    /// A string.
    Str,
    /// A boolean-ish condition.
    Bool,
    /// A list literal of mixed values.
    List,
    /// A list literal of numbers.
    NumList,
    /// A list literal of strings.
    StrListValue,
    /// A list of records (for `evalInEachContext`, `countMatches`).
    RecordList,
    /// A delimited string list such as `"a, b,c"`.
    DelimList,
    /// Delimiter characters.
    Delims,
    /// A regular expression.
    Pattern,
    /// Regular-expression option letters.
    RegexOpts,
    /// A substitution with back-references.
    Subst,
    /// A version string.
    VersionText,
    /// An absolute time (or an epoch number).
    AbsTime,
    /// A relative time.
    RelTime,
    /// A string `absTime` reads (or a number).
    AbsText,
    /// A string `relTime` reads (or a number).
    RelText,
    /// A `strftime` format.
    TimeFormat,
    /// A time zone offset in seconds.
    Offset,
    /// A comparison operator name for `anyCompare`/`allCompare`.
    CmpOp,
    /// An attribute reference (for `unparse`/`unresolved`).
    AttrRef,
    /// A string holding expression text (for `eval`).
    ExprText,
    /// An environment string (V1 `;`-separated or V2 space-separated).
    Env,
    /// An argument string.
    Args,
    /// A user or slot name with `@`.
    AtName,
}

/// One builtin the generator calls.
#[derive(Clone, Copy, Debug)]
pub struct Builtin {
    /// The name as registered.
    pub name: &'static str,
    /// Its family.
    pub family: Family,
    /// The usual kind of each argument position; the length is the largest arity
    /// (for a variadic function, the last kind repeats).
    pub args: &'static [Arg],
    /// The smallest arity.
    pub min: usize,
    /// Takes any number of arguments.
    pub variadic: bool,
    /// With no arguments it reads the clock (`absTime()`, `formatTime()`), so a
    /// wrong-arity call must not drop to zero arguments.
    pub clock_when_empty: bool,
}

const fn f(name: &'static str, family: Family, min: usize, args: &'static [Arg]) -> Builtin {
    Builtin {
        name,
        family,
        args,
        min,
        variadic: false,
        clock_when_empty: false,
    }
}

const fn variadic(name: &'static str, family: Family, min: usize, args: &'static [Arg]) -> Builtin {
    Builtin {
        name,
        family,
        args,
        min,
        variadic: true,
        clock_when_empty: false,
    }
}

const fn clocked(name: &'static str, family: Family, min: usize, args: &'static [Arg]) -> Builtin {
    Builtin {
        name,
        family,
        args,
        min,
        variadic: false,
        clock_when_empty: true,
    }
}

use Arg::*;
use Family::*;

/// Every deterministic builtin (those whose result depends only on the arguments).
pub const BUILTINS: &[Builtin] = &[
    // core
    f("ifThenElse", Core, 3, &[Bool, Any, Any]),
    f("isUndefined", Core, 1, &[Any]),
    f("isError", Core, 1, &[Any]),
    f("isString", Core, 1, &[Any]),
    f("isInteger", Core, 1, &[Any]),
    f("isReal", Core, 1, &[Any]),
    f("isBoolean", Core, 1, &[Any]),
    f("isList", Core, 1, &[Any]),
    f("isClassAd", Core, 1, &[Any]),
    f("isAbsTime", Core, 1, &[Any]),
    f("isRelTime", Core, 1, &[Any]),
    // convert
    f("int", Convert, 1, &[Any]),
    f("real", Convert, 1, &[Any]),
    f("string", Convert, 1, &[Any]),
    f("bool", Convert, 1, &[Any]),
    // math
    f("floor", Math, 1, &[Num]),
    f("ceil", Math, 1, &[Num]),
    f("ceiling", Math, 1, &[Num]),
    f("round", Math, 1, &[Num]),
    f("pow", Math, 2, &[Num, Num]),
    f("quantize", Math, 2, &[Num, NumList]),
    // strings
    variadic("strcat", Strings, 0, &[Any]),
    variadic("join", Strings, 1, &[Str, Any]),
    f("toUpper", Strings, 1, &[Str]),
    f("toLower", Strings, 1, &[Str]),
    f("substr", Strings, 2, &[Str, Int, Int]),
    f("strcmp", Strings, 2, &[Str, Str]),
    f("stricmp", Strings, 2, &[Str, Str]),
    f("size", Strings, 1, &[Any]),
    f("interval", Strings, 1, &[Num]),
    // version
    f("versioncmp", Version, 2, &[VersionText, VersionText]),
    f("versionLT", Version, 2, &[VersionText, VersionText]),
    f("versionLE", Version, 2, &[VersionText, VersionText]),
    f("versionEQ", Version, 2, &[VersionText, VersionText]),
    f("versionGE", Version, 2, &[VersionText, VersionText]),
    f("versionGT", Version, 2, &[VersionText, VersionText]),
    f(
        "version_in_range",
        Version,
        3,
        &[VersionText, VersionText, VersionText],
    ),
    // lists
    f("member", Lists, 2, &[Any, List]),
    f("identicalMember", Lists, 2, &[Any, List]),
    f("sum", Lists, 1, &[NumList]),
    f("avg", Lists, 1, &[NumList]),
    f("min", Lists, 1, &[NumList]),
    f("max", Lists, 1, &[NumList]),
    f("anyCompare", Lists, 3, &[CmpOp, List, Any]),
    f("allCompare", Lists, 3, &[CmpOp, List, Any]),
    f("evalInEachContext", Lists, 2, &[Any, RecordList]),
    f("countMatches", Lists, 2, &[Bool, RecordList]),
    // time (of explicit arguments only; the clock readers are in NONDETERMINISTIC)
    f("timeZoneOffset", Time, 0, &[]),
    f("getYear", Time, 1, &[AbsTime]),
    f("getMonth", Time, 1, &[AbsTime]),
    f("getDayOfYear", Time, 1, &[AbsTime]),
    f("getDayOfMonth", Time, 1, &[AbsTime]),
    f("getDayOfWeek", Time, 1, &[AbsTime]),
    f("getDays", Time, 1, &[RelTime]),
    f("getHours", Time, 1, &[RelTime]),
    f("getMinutes", Time, 1, &[RelTime]),
    f("getSeconds", Time, 1, &[RelTime]),
    f("splitTime", Time, 1, &[AbsTime]),
    clocked("formatTime", Time, 1, &[AbsTime, TimeFormat]),
    clocked("absTime", Time, 1, &[AbsText, Offset]),
    f("relTime", Time, 1, &[RelText]),
    // regex
    f("regexp", Regex, 2, &[Pattern, Str, RegexOpts]),
    f(
        "regexpMember",
        Regex,
        2,
        &[Pattern, StrListValue, RegexOpts],
    ),
    f("regexps", Regex, 3, &[Pattern, Str, Subst, RegexOpts]),
    f("replace", Regex, 3, &[Pattern, Str, Subst, RegexOpts]),
    f("replaceAll", Regex, 3, &[Pattern, Str, Subst, RegexOpts]),
    // string lists
    f("split", StringList, 1, &[Str, Delims]),
    f("splitUserName", StringList, 1, &[AtName]),
    f("splitSlotName", StringList, 1, &[AtName]),
    f(
        "stringListsIntersect",
        StringList,
        2,
        &[DelimList, DelimList, Delims],
    ),
    f("stringListSize", StringList, 1, &[DelimList, Delims]),
    f("stringListSum", StringList, 1, &[DelimList, Delims]),
    f("stringListAvg", StringList, 1, &[DelimList, Delims]),
    f("stringListMin", StringList, 1, &[DelimList, Delims]),
    f("stringListMax", StringList, 1, &[DelimList, Delims]),
    f("stringListMember", StringList, 2, &[Str, DelimList, Delims]),
    f(
        "stringListIMember",
        StringList,
        2,
        &[Str, DelimList, Delims],
    ),
    f(
        "stringListSubsetMatch",
        StringList,
        2,
        &[DelimList, DelimList, Delims],
    ),
    f(
        "stringListISubsetMatch",
        StringList,
        2,
        &[DelimList, DelimList, Delims],
    ),
    f(
        "stringList_regexpMember",
        StringList,
        2,
        &[Pattern, DelimList, Delims, RegexOpts],
    ),
    // environment and arguments
    f("envV1ToV2", EnvArgs, 1, &[Env]),
    variadic("mergeEnvironment", EnvArgs, 0, &[Env]),
    f("listToArgs", EnvArgs, 1, &[StrListValue]),
    f("argsToList", EnvArgs, 1, &[Args, Any]),
    // introspection
    f("eval", Introspect, 1, &[ExprText]),
    f("unparse", Introspect, 1, &[AttrRef]),
    f("debug", Introspect, 1, &[Any]),
    f("unresolved", Introspect, 1, &[AttrRef, Pattern]),
    // users and maps
    f("userHome", Users, 1, &[AtName, Str]),
    f("userMap", Users, 2, &[Str, AtName, Str, Any]),
];

/// Builtins whose raw result depends on the clock or a random source, each with
/// the family it belongs to and deterministic expressions that call it: the result
/// of each of these is the same on every evaluation, so both engines must agree.
pub const NONDETERMINISTIC: &[(&str, Family, &[&str])] = &[
    ("time", Time, &["isInteger(time())", "time() > 1000000000"]),
    (
        "currentTime",
        Time,
        &["isAbsTime(currentTime())", "currentTime() > absTime(0)"],
    ),
    (
        "dayTime",
        Time,
        &["isRelTime(dayTime())", "dayTime() >= relTime(0)"],
    ),
    (
        "random",
        Math,
        &[
            "random() < 1.0",
            "isInteger(random(10))",
            "random(10) < 10",
            "isReal(random(2.5))",
            "random(-1) <= 0",
        ],
    ),
];

/// Clock-reading calls of otherwise deterministic builtins, and the `CurrentTime`
/// special name, in deterministic wrappers.
pub const CLOCK_WRAPPERS: &[&str] = &[
    "isAbsTime(absTime())",
    "isString(formatTime())",
    "size(formatTime()) > 0",
    "CurrentTime > 0",
    "isInteger(CurrentTime) || isUndefined(CurrentTime)",
];

/// The family of builtin `name` (case-insensitive), if the generator knows it.
pub fn family_of(name: &str) -> Option<Family> {
    BUILTINS
        .iter()
        .find(|b| b.name.eq_ignore_ascii_case(name))
        .map(|b| b.family)
        .or_else(|| {
            NONDETERMINISTIC
                .iter()
                .find(|(n, _, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, fam, _)| *fam)
        })
}
