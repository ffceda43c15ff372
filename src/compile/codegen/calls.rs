//! Builtin calls: arguments evaluated into registers, membership in constant
//! lists prepared once (`Member`), and calls the machine must leave alone.

use super::emit::reg8;
use super::{site, without_arguments, Gen};
use crate::functions::{
    find, find_index, ERROR_ON_FAILED_ARGUMENT, IMPURE_BUILTINS, SCOPED_BUILTINS,
};
use crate::syntax::ast::NodeId;
use classad_vm::instr::{form, U24};
use classad_vm::{Op, Str, Value};

/// The membership builtins that compile to `Member` when their list is a
/// constant (see `const_set`).
pub(super) const MEMBERSHIP_BUILTINS: [&str; 4] = [
    "stringListMember",
    "stringListIMember",
    "member",
    "identicalMember",
];

impl Gen<'_> {
    pub(super) fn call(&mut self, name: &str, args: &[NodeId], dst: u16, d: u32) {
        let Some(b) = find(name) else {
            // An unknown function is error, its arguments unevaluated.
            return self.konst(dst, Value::Error);
        };
        if b.name.eq_ignore_ascii_case("ifThenElse") {
            return match args {
                [c, a, e] => self.conditional(*c, *a, *e, dst, d, false),
                _ => self.konst(dst, Value::Error),
            };
        }
        if b.name.eq_ignore_ascii_case("evalInEachContext") {
            if let Some(records) = self.each_context_records(args) {
                return self.each_context(args[0], records, dst, d);
            }
        }
        if SCOPED_BUILTINS
            .iter()
            .any(|s| s.eq_ignore_ascii_case(b.name))
            || args.len() > 255
        {
            return self.reference();
        }
        let Some(native) = find_index(name) else {
            return self.reference();
        };
        let impure = IMPURE_BUILTINS
            .iter()
            .any(|s| s.eq_ignore_ascii_case(b.name));
        if let Some(v) = without_arguments(b.run, args.len()) {
            if !impure {
                // Wrong arity: the builtin answers without evaluating its arguments.
                return self.konst(dst, v);
            }
            if !args.is_empty() {
                // Whether that answer reads the clock is the builtin's business.
                return self.reference();
            }
            // The clock or chance, read by the call when it runs (`time()`,
            // `random()`): never when compiled.
        }
        if b.name.eq_ignore_ascii_case("size") && args.len() == 1 {
            // `size(TARGET.AvailableGPUs)`: a list's length needs none of its
            // elements, which may be references the machine cannot evaluate.
            if let Some(mut path) = self.chain_select(args[0], 1) {
                path.size = Some(native);
                let at = self.paths.len() as u32;
                self.paths.push(path);
                // (One level below the call, where its argument is.)
                self.select_path(dst, site(d + 1), at);
                return;
            }
        }
        if let Some(set) = self.const_set(b.name, args) {
            let rx = self.reg();
            self.node(args[0], rx, d);
            let at = self.sets.len() as u32;
            self.sets.push(set);
            let (dst, src) = (reg8(dst), reg8(rx));
            self.push(form::Member { dst, src, set: at }.instr(Op::Member));
            return;
        }
        if ERROR_ON_FAILED_ARGUMENT
            .iter()
            .any(|s| s.eq_ignore_ascii_case(b.name))
        {
            self.fail_needs_reference = true;
        }
        let first = self.next_reg;
        for _ in args {
            self.reg();
        }
        for (i, a) in args.iter().enumerate() {
            self.node(*a, first + i as u16, d);
        }
        // (Registers past 255, and so more arguments, make the program fall back.)
        self.call_native(dst, first, native, args.len() as u8);
    }

    /// Builtin `native` on the `argc` registers from `first`, into `dst`.
    pub(super) fn call_native(&mut self, dst: u16, first: u16, native: u32, argc: u8) {
        match U24::new(native) {
            Some(native) => {
                let (dst, first) = (reg8(dst), reg8(first));
                self.push(
                    form::Call {
                        dst,
                        first,
                        argc,
                        native,
                    }
                    .instr(Op::Call),
                );
            }
            None => self.reference(),
        }
    }

    /// The prepared collection of a membership builtin (`stringListMember` and
    /// `stringListIMember`, `member` and `identicalMember`) whose list argument
    /// (and delimiters) are constants: only its first argument is then evaluated,
    /// and the list is split once, here.
    fn const_set(&mut self, name: &str, args: &[NodeId]) -> Option<classad_vm::ConstSet> {
        use crate::functions::stringlist::{items, loose_text, DEFAULT_DELIMS};
        let is = |s: &str| name.eq_ignore_ascii_case(s);
        let [string_list, string_list_i, member, identical_member] = MEMBERSHIP_BUILTINS;
        if is(string_list) || is(string_list_i) {
            let list_value = self.known(*args.get(1)?)?;
            let list = loose_text(&list_value)?;
            let delims = match args.get(2) {
                None => DEFAULT_DELIMS.to_string(),
                Some(&d) => {
                    let v = self.known(d)?;
                    match loose_text(&v)? {
                        t if t.is_empty() && v.is_undefined() => DEFAULT_DELIMS.to_string(),
                        t => t,
                    }
                }
            };
            if args.len() > 3 {
                return None;
            }
            let items = items(&list, &delims).into_iter().map(Str::new).collect();
            Some(classad_vm::ConstSet::Strings {
                items,
                ignore_case: is(string_list_i),
                // An undefined list reads as empty, except to an undefined value.
                list_undefined: list_value.is_undefined(),
            })
        } else if (is(member) || is(identical_member)) && args.len() == 2 {
            let list = self.known(args[1])?;
            Some(classad_vm::ConstSet::Values {
                items: crate::compile::host::list_values(&list)?,
                identical: is(identical_member),
            })
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;

    #[test]
    fn membership_in_constant_lists_is_prepared_once() {
        let my = "Groups = \"a, b ,c\"\nNums = { 1, 2.5, \"x\" }";
        for target in [
            "G = \"b\"",
            "G = \"B\"",
            "G = 2.5",
            "G = undefined",
            "G = error",
            "X = 1",
        ] {
            for expr in [
                "stringListMember(TARGET.G, MY.Groups)",
                "stringListIMember(TARGET.G, Groups)",
                "stringListMember(TARGET.G, \"a;b\", \";\")",
                "stringListMember(TARGET.G, \"b c\", undefined)",
                "identicalMember(TARGET.G, { 2.5, undefined, \"B\" })",
                "member(TARGET.G, { \"B\", 1 })",
            ] {
                let p = compiled(expr, my, target);
                assert!(ops(&p).contains(&Op::Member), "{expr}\n{p}");
            }
        }
        // MY's list of literals is a constant set too.
        for expr in [
            "member(TARGET.G, MY.Nums)",
            "identicalMember(TARGET.G, Nums)",
        ] {
            let p = compiled(expr, my, "G = 2.5");
            assert!(ops(&p).contains(&Op::Member), "{expr}\n{p}");
        }
        // A list whose elements are names stays a call, and agrees.
        let e = ExprRef::root_of(Arc::new(parse_expr("member(TARGET.G, MY.Names)").unwrap()));
        let my = ad("Names = { A, 2 }\nA = 1");
        let p = compile_expr(&e, Some(&my), &mut SlotTable::new());
        assert!(!ops(&p).contains(&Op::Member), "{p}");
        let p = compiled("member(1, TARGET.L)", "A = 1", "L = { 1 }");
        assert!(!ops(&p).contains(&Op::Member), "{p}");
    }

    #[test]
    fn membership_in_an_undefined_list_keeps_undefined_undefined() {
        // HTCondor: both first arguments undefined give undefined; the set made of
        // an undefined list must say so, not read the value as "" (issue 9).
        let my = "Undef = undefined\nNone = \"\"";
        for target in ["G = \"a\"", "G = undefined", "G = 1", "G = error", "X = 1"] {
            for expr in [
                "stringListMember(TARGET.G, undefined)",
                "!stringListMember(TARGET.G, MY.Missing)",
                "stringListIMember(TARGET.G, MY.Undef)",
                "stringListMember(TARGET.G, Undef, \",\")",
                "stringListIMember(TARGET.G, undefined, undefined)",
                "stringListMember(TARGET.G, MY.None)",
            ] {
                let p = compiled(expr, my, target);
                assert!(ops(&p).contains(&Op::Member), "{expr}\n{p}");
            }
        }
    }
}
