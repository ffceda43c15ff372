//! The dispatch loop, and the state of one evaluation between two compiled ads.
//!
//! Attribute values are computed lazily and at most once per evaluation (memoized
//! by side and slot). HTCondor re-evaluates instead, which gives the same values
//! except around circular references, so a value computed while a circular reference
//! was hit is not memoized (it depends on what was being evaluated at the time).
//!
//! HTCondor fails an evaluation that nests deeper than 400 levels or takes more than
//! 10,000,000 steps. The machine keeps upper bounds of both (static depths and node
//! counts from the compiler, carried through memoized attributes) and stops with
//! [`Halt::NeedReference`] whenever a limit might be reached, so that the caller can
//! rerun the evaluation on the reference evaluator, which applies the limits exactly.

use crate::ad::{Attr, CompiledAd};
use crate::instr::{form, Op};
use crate::limits::{MAX_DEPTH, MAX_FOLDED_STEPS, MAX_STEPS};
use crate::ops::{self, Arith, Bit, Cmp};
use crate::program::{Program, Reached};
use crate::value::Value;

/// Why the machine stopped without a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Halt {
    /// The evaluation failed, as HTCondor's does when it reaches its step limit
    /// (the compiler proved it would: see `Op::Fail`).
    Fail,
    /// The evaluation must be done by the reference evaluator: it uses a construct
    /// the compiler leaves to it, or it may reach HTCondor's depth or step limits.
    NeedReference,
}

/// What the machine asks of the front end.
pub trait Host {
    /// Calls builtin `native` on argument values.
    fn call(&mut self, native: u32, args: &[Value]) -> Result<Value, Halt>;
    /// `a[b]` on a list or an ad.
    fn index(&mut self, a: &Value, b: &Value) -> Result<Value, Halt>;
    /// The list of `items` (`Op::List`); by default left to the reference
    /// evaluator.
    fn list(&mut self, items: &[Value]) -> Result<Value, Halt> {
        let _ = items;
        Err(Halt::NeedReference)
    }
    /// True when builtin `native`, called without arguments, may be called once
    /// for the evaluations of a block of ads that run together (the clock, read
    /// at one instant for them all; never chance, which draws anew each call).
    fn shared_by_block(&self, native: u32) -> bool {
        let _ = native;
        false
    }
    /// True when builtin `native`'s value depends on its arguments' values
    /// alone (not the clock, chance or a scope), so that the machine may answer
    /// a call from an earlier call on the same values.
    fn pure_call(&self, native: u32) -> bool {
        let _ = native;
        false
    }
    /// Two words that only lists or records with the same value have (the
    /// address of what they share, which `v` keeps alive), or `None`.
    fn identity(&self, v: &Value) -> Option<[u64; 2]> {
        let _ = v;
        None
    }
    /// The bytes list `v` holds, when a builtin made it of scalars alone: its
    /// strings' text and a word per item. `None` for anything else, whose
    /// size is not known here (the machine's memo keeps no such value).
    fn list_bytes(&self, v: &Value) -> Option<usize> {
        let _ = v;
        None
    }
}

/// A host for the crate's unit tests of hand-written programs: no builtin, no
/// subscript (both leave the evaluation to the reference evaluator).
#[cfg(test)]
pub(crate) struct NoBuiltins;

#[cfg(test)]
impl Host for NoBuiltins {
    fn call(&mut self, _: u32, _: &[Value]) -> Result<Value, Halt> {
        Err(Halt::NeedReference)
    }
    fn index(&mut self, _: &Value, _: &Value) -> Result<Value, Halt> {
        Err(Halt::NeedReference)
    }
}

/// How many attribute loads the machine nests before it leaves the evaluation to
/// the reference evaluator. Each load runs the attribute's program one level down
/// the Rust stack (about 12 KB a level, mostly the dispatch loop's frame), so a
/// deep chain of references would overflow a 2 MiB thread stack (rayon's, a
/// test's) long before HTCondor's limit; the reference evaluator's frames are a
/// fraction of that. Deferring is always exact.
const MAX_NESTING: u32 = 64;
/// Step estimate beyond which the reference evaluator takes over (its real limit is
/// [`MAX_STEPS`]; the estimate is an upper bound, so deferring early is always
/// exact). Folded values' exact steps are counted apart, against
/// [`MAX_FOLDED_STEPS`].
pub(crate) const STEP_BOUND: u64 = MAX_STEPS / 10;

#[derive(Clone, Debug, Default)]
enum Memo {
    #[default]
    Empty,
    InProgress,
    /// The value, the depth its evaluation needs, its step cost (estimated) and
    /// the folded steps it charged.
    Done(Value, u32, u64, u64),
}

/// The registers of one run.
type Frame = [Value; 256];

/// The reusable state of evaluations: registers and memo tables. One per thread.
#[derive(Debug, Default)]
pub struct Machine {
    /// One register frame per nesting level of runs, kept between runs: a run
    /// neither allocates nor initialises its registers (every program writes a
    /// register before reading it). A frame has all 256 registers an 8-bit operand
    /// can name, so register accesses need no bounds checks.
    frames: Vec<Option<Box<Frame>>>,
    level: usize,
    memo: [Vec<Memo>; 2],
    touched: Vec<(usize, u32)>,
    pub(crate) steps: u64,
    /// The exact steps of folded values charged so far (see
    /// [`Program::folded_steps`]), apart from the estimate in `steps`.
    pub(crate) folded: u64,
    cycle: bool,
    pub(crate) nesting: u32,
    /// Values of TARGET-only subexpressions, by (TARGET ad, subexpression key).
    /// Valid only for the ads they were computed from: see [`Machine::clear_cache`].
    pub(crate) target_cache: ahash::AHashMap<(usize, u64), Value>,
    /// State of [`Machine::eval_attr_lanes`].
    pub(crate) lanes: crate::lanes::LaneState,
    /// State of [`Machine::verdicts`].
    pub(crate) masks: crate::verdicts::MaskState,
    /// Set when an evaluation read an attribute that is not a literal.
    read_code: bool,
    /// Who the cache belongs to (see [`Machine::cache_for`]).
    cache_owner: u64,
    /// How many values the last sweep of [`Machine::bound_cache_keeping`] kept.
    cache_kept: usize,
    /// Closed values of TARGET ads' attributes that are code, by (ad, slot);
    /// `None` where there is none (module `closed`). Kept and cleared with
    /// `target_cache`.
    pub(crate) closed: ahash::AHashMap<(usize, u32), Option<crate::closed::Closed>>,
    /// While a closed value is computed: the names looked up in the other side.
    pub(crate) recording: Option<smallvec::SmallVec<[u32; 4]>>,
    /// Builtins' values by their arguments (see [`crate::call_memo`]).
    pub(crate) calls: crate::call_memo::CallMemo,
}

/// The two ads of an evaluation: side 0 is the ad the top-level expression belongs
/// to (MY), side 1 the other (TARGET), if any.
#[derive(Clone, Copy, Debug)]
pub struct Sides<'a> {
    ads: [&'a CompiledAd; 2],
    has_target: bool,
}

impl<'a> Sides<'a> {
    /// MY and, optionally, TARGET.
    pub fn new(my: &'a CompiledAd, target: Option<&'a CompiledAd>) -> Sides<'a> {
        static EMPTY: CompiledAd = CompiledAd::empty();
        Sides {
            ads: [my, target.unwrap_or(&EMPTY)],
            has_target: target.is_some(),
        }
    }

    /// MY against `empty`, an ad with no attributes, as TARGET: every name
    /// looked up there is undefined (and recorded, see module `closed`).
    pub(crate) fn against_empty(my: &'a CompiledAd, empty: &'a CompiledAd) -> Sides<'a> {
        Sides {
            ads: [my, empty],
            has_target: true,
        }
    }
}

impl Machine {
    /// A machine with no state yet.
    pub fn new() -> Machine {
        Machine::default()
    }

    /// Forgets the cached values of TARGET-only subexpressions. Call it before
    /// using the machine with ads other than those it has seen (a new pool): the
    /// cache is keyed by the ads' addresses.
    pub fn clear_cache(&mut self) {
        self.target_cache.clear();
        self.closed.clear();
        self.calls.clear();
        self.cache_kept = 0;
    }

    /// How many TARGET-only values are cached.
    pub fn cached_values(&self) -> usize {
        self.target_cache.len()
    }

    /// Keeps the cache only if it was filled for `owner` (say, one pool of
    /// compiled ads, with an id unique for the process); otherwise clears it.
    pub fn cache_for(&mut self, owner: u64) {
        if self.cache_owner != owner {
            self.clear_cache();
            self.cache_owner = owner;
        }
    }

    /// Clears the cache of TARGET-only values once it holds more than `max`.
    /// A caller that goes through its TARGET ads a block at a time (the batch
    /// matcher's blocks of slots) so keeps it small and in the processor's cache,
    /// instead of growing it, and touching fresh memory, for values of TARGET
    /// ads it has finished with; a value still wanted is computed again.
    pub fn bound_cache(&mut self, max: usize) {
        if self.cache_len() > max {
            self.clear_cache();
        }
    }

    /// [`Machine::bound_cache`] for a caller that comes back to some TARGET ads
    /// again and again (the batch matcher's jobs, against every block of slots)
    /// and is done with the others (the slots of a finished block): past `max`,
    /// only the values of the ads `lasting` names (by address) are kept, up to
    /// `lasting_max` of them; past that the cache is emptied. Dropping the
    /// lasting ones with the others made every block of slots compute each
    /// job's values anew.
    pub fn bound_cache_keeping(
        &mut self,
        max: usize,
        lasting_max: usize,
        lasting: impl Fn(*const CompiledAd) -> bool,
    ) {
        // What the last sweep kept is not counted against `max`: sweeping
        // again before as many values more were added would keep the same.
        if self.cache_len() <= self.cache_kept.saturating_add(max) {
            return;
        }
        let keep = |ad: usize| lasting(ad as *const CompiledAd);
        self.target_cache.retain(|&(ad, _), _| keep(ad));
        self.closed.retain(|&(ad, _), _| keep(ad));
        if self.cache_len() > lasting_max {
            self.clear_cache();
        }
        self.cache_kept = self.cache_len();
    }

    /// How many values the caches of TARGET-only and closed values hold.
    fn cache_len(&self) -> usize {
        self.target_cache.len() + self.closed.len()
    }

    /// Computes a TARGET-only subexpression of a program of `my` for `target`
    /// on its own, and caches its value as evaluating the program would
    /// (unless the value read an attribute that is not a literal): the value,
    /// or `None` when it is not cached. (The caller has found no value cached.)
    pub(crate) fn target_only_value(
        &mut self,
        sub: &crate::program::TargetOnly,
        my: &CompiledAd,
        target: &CompiledAd,
        host: &mut dyn Host,
    ) -> Option<Value> {
        self.reset();
        self.read_code = false;
        let r = self.run(&sub.code, 0, Sides::new(my, Some(target)), host);
        self.reset();
        match r {
            Ok((v, _)) if !self.read_code => {
                let key = (target as *const CompiledAd as usize, sub.key);
                self.target_cache.insert(key, v.clone());
                Some(v)
            }
            _ => None,
        }
    }

    pub(crate) fn reset(&mut self) {
        for (side, slot) in self.touched.drain(..) {
            self.memo[side][slot as usize] = Memo::Empty;
        }
        self.steps = 0;
        self.folded = 0;
        self.cycle = false;
        self.nesting = 0;
        self.level = 0;
    }

    /// Evaluates `prog` as an expression of side 0 (HTCondor: `EvaluateExpr` with
    /// MY = side 0 and TARGET = side 1).
    pub fn eval(
        &mut self,
        prog: &Program,
        sides: Sides<'_>,
        host: &mut dyn Host,
    ) -> Result<Value, Halt> {
        self.reset();
        let (v, depth) = self.run(prog, 0, sides, host)?;
        if depth > MAX_DEPTH {
            return Err(Halt::NeedReference);
        }
        Ok(v)
    }

    /// Evaluates attribute `slot` of `side` (undefined when absent) as a reference
    /// to it at `site` depth does: the attribute counts as being evaluated, and its
    /// expression starts one level below `site`.
    pub fn eval_attr(
        &mut self,
        side: usize,
        slot: u32,
        site: u32,
        sides: Sides<'_>,
        host: &mut dyn Host,
    ) -> Result<Value, Halt> {
        self.reset();
        self.eval_attr_more(side, slot, site, sides, host)
    }

    /// Like [`Machine::eval_attr`], but within the current evaluation (no reset):
    /// for a caller evaluating several attributes as one HTCondor evaluation, such
    /// as both Requirements of a symmetric match.
    pub fn eval_attr_more(
        &mut self,
        side: usize,
        slot: u32,
        site: u32,
        sides: Sides<'_>,
        host: &mut dyn Host,
    ) -> Result<Value, Halt> {
        let (v, depth) = self.load(side, slot, sides, host)?;
        if depth.is_some_and(|d| site + 1 + d > MAX_DEPTH) {
            return Err(Halt::NeedReference);
        }
        Ok(v)
    }

    /// The value of attribute `slot` of `side`, and the depth its evaluation needs
    /// below the dereference (`None` when nothing was dereferenced).
    pub(crate) fn load(
        &mut self,
        side: usize,
        slot: u32,
        sides: Sides<'_>,
        host: &mut dyn Host,
    ) -> Result<(Value, Option<u32>), Halt> {
        if side == 1 {
            if let Some(names) = &mut self.recording {
                names.push(slot);
            }
        }
        if side == 1 && !sides.has_target {
            return Ok((Value::Undefined, None));
        }
        let prog = match sides.ads[side].get(slot) {
            Attr::Absent => return Ok((Value::Undefined, None)),
            Attr::Value(v) => {
                self.steps += 1;
                return Ok((v.clone(), Some(0)));
            }
            Attr::Code(p) => p,
        };
        self.read_code = true;
        let i = slot as usize;
        if self.memo[side].len() <= i {
            self.memo[side].resize(i + 1, Memo::Empty);
        }
        match &self.memo[side][i] {
            Memo::InProgress => {
                // A circular reference: undefined, as in HTCondor 25.
                self.cycle = true;
                return Ok((Value::Undefined, None));
            }
            Memo::Done(v, depth, cost, folded) => {
                self.steps += cost;
                self.folded += folded;
                if self.steps > STEP_BOUND || self.folded > MAX_FOLDED_STEPS {
                    return Err(Halt::NeedReference);
                }
                return Ok((v.clone(), Some(*depth)));
            }
            Memo::Empty => {}
        }
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            self.nesting -= 1;
            return Err(Halt::NeedReference);
        }
        self.memo[side][i] = Memo::InProgress;
        self.touched.push((side, slot));
        let outer_cycle = std::mem::take(&mut self.cycle);
        let (steps_before, folded_before) = (self.steps, self.folded);
        let r = self.run(prog, side, sides, host);
        self.nesting -= 1;
        let (v, depth) = match r {
            Ok(x) => x,
            Err(h) => {
                self.memo[side][i] = Memo::Empty;
                return Err(h);
            }
        };
        self.memo[side][i] = if self.cycle {
            Memo::Empty
        } else {
            Memo::Done(
                v.clone(),
                depth,
                self.steps - steps_before,
                self.folded - folded_before,
            )
        };
        self.cycle |= outer_cycle;
        Ok((v, Some(depth)))
    }

    /// Runs `prog` with `me` as MY; returns its value and the depth it needs.
    fn run(
        &mut self,
        p: &Program,
        me: usize,
        sides: Sides<'_>,
        host: &mut dyn Host,
    ) -> Result<(Value, u32), Halt> {
        self.steps += u64::from(p.nodes);
        self.folded += u64::from(p.folded_steps);
        if self.steps > STEP_BOUND || self.folded > MAX_FOLDED_STEPS {
            return Err(Halt::NeedReference);
        }
        let level = self.level;
        if self.frames.len() <= level {
            self.frames.push(None);
        }
        let mut frame = self.frames[level]
            .take()
            .unwrap_or_else(|| Box::new(std::array::from_fn(|_| Value::Undefined)));
        self.level += 1;
        let mut r = self.dispatch(p, me, &mut frame, sides, host);
        if p.fail_needs_reference && matches!(r, Err(Halt::Fail)) {
            r = Err(Halt::NeedReference);
        }
        self.level = level;
        self.frames[level] = Some(frame);
        r
    }

    /// `SelectPath` (kept out of the dispatch loop): its value and the depth it
    /// reaches.
    #[cold]
    #[inline(never)]
    fn select_path(
        &mut self,
        p: &Program,
        ins: form::SelectPath,
        me: usize,
        sides: Sides<'_>,
        host: &mut dyn Host,
    ) -> Result<(Value, u32), Halt> {
        let path = &p.paths[ins.path as usize];
        let side = if path.target { 1 - me } else { me };
        if side == 1 && self.recording.is_some() {
            // (What a path reads past its first name is not recorded.)
            return Err(Halt::NeedReference);
        }
        if side == 1 && !sides.has_target {
            return Ok((Value::Undefined, 0));
        }
        let ad = sides.ads[side];
        let v = match path.size {
            None => path.resolve(ad).ok_or(Halt::NeedReference)?,
            Some(native) => match path.reach(ad) {
                Some(Reached::List(n)) => Value::Int(i64::from(n)),
                Some(Reached::Value(v)) => host.call(native, std::slice::from_ref(&v))?,
                // `size(TARGET.x)` where `x` is code: the builtin on its value.
                None if path.steps.is_empty() => {
                    let (v, d) = self.load(side, path.slot, sides, host)?;
                    let size = host.call(native, std::slice::from_ref(&v))?;
                    let depth = u32::from(ins.depth) + d.map_or(0, |d| d + 1);
                    return Ok((size, depth.max(u32::from(ins.depth) + path_depth(path))));
                }
                None => return Err(Halt::NeedReference),
            },
        };
        // HTCondor's steps and levels (see `path_depth`).
        self.steps += u64::from(path_depth(path));
        Ok((v, u32::from(ins.depth) + path_depth(path)))
    }

    fn dispatch(
        &mut self,
        p: &Program,
        me: usize,
        frame: &mut Frame,
        sides: Sides<'_>,
        host: &mut dyn Host,
    ) -> Result<(Value, u32), Halt> {
        let mut depth = p.max_depth;
        let mut pc = 0usize;
        macro_rules! r {
            ($i:expr) => {
                frame[($i) as u8 as usize]
            };
        }
        macro_rules! bin {
            ($f:expr, $ins:expr) => {{
                let form::Binary { dst, a, b } = form::Binary::of($ins);
                let v = $f(&r!(a), &r!(b));
                r!(dst) = v;
            }};
        }
        loop {
            let ins = p.code[pc];
            pc += 1;
            // The operands of a one-register instruction.
            let unary = || form::Unary::of(ins);
            match ins.op() {
                Op::Const => {
                    let form::Const { dst, konst } = form::Const::of(ins);
                    r!(dst) = p.consts[konst as usize].clone()
                }
                Op::Move => {
                    let form::Unary { dst, src } = unary();
                    r!(dst) = r!(src).clone()
                }
                Op::LoadMy | Op::LoadTarget => {
                    let form::Load {
                        dst,
                        depth: site,
                        slot,
                    } = form::Load::of(ins);
                    let side = if ins.op() == Op::LoadMy { me } else { 1 - me };
                    let (v, d) = self.load(side, slot, sides, host)?;
                    if let Some(d) = d {
                        depth = depth.max(u32::from(site) + 1 + d);
                    }
                    r!(dst) = v;
                }
                Op::Neg => {
                    let form::Unary { dst, src } = unary();
                    r!(dst) = ops::neg(&r!(src))
                }
                Op::Plus => {
                    let form::Unary { dst, src } = unary();
                    r!(dst) = ops::plus(&r!(src))
                }
                Op::Not => {
                    let form::Unary { dst, src } = unary();
                    r!(dst) = ops::not(&r!(src))
                }
                Op::BitNot => {
                    let form::Unary { dst, src } = unary();
                    r!(dst) = ops::bit_not(&r!(src))
                }
                Op::Add => bin!(|a, b| ops::arith(Arith::Add, a, b), ins),
                Op::Sub => bin!(|a, b| ops::arith(Arith::Sub, a, b), ins),
                Op::Mul => bin!(|a, b| ops::arith(Arith::Mul, a, b), ins),
                Op::Div => bin!(|a, b| ops::arith(Arith::Div, a, b), ins),
                Op::Mod => bin!(|a, b| ops::arith(Arith::Mod, a, b), ins),
                Op::Lt => bin!(|a, b| ops::compare(Cmp::Lt, a, b), ins),
                Op::Le => bin!(|a, b| ops::compare(Cmp::Le, a, b), ins),
                Op::Gt => bin!(|a, b| ops::compare(Cmp::Gt, a, b), ins),
                Op::Ge => bin!(|a, b| ops::compare(Cmp::Ge, a, b), ins),
                Op::Eq => bin!(|a, b| ops::compare(Cmp::Eq, a, b), ins),
                Op::Ne => bin!(|a, b| ops::compare(Cmp::Ne, a, b), ins),
                Op::Is | Op::Isnt
                    if matches!(r!(form::Binary::of(ins).a), Value::List(_))
                        && matches!(r!(form::Binary::of(ins).b), Value::List(_)) =>
                {
                    // Whether two lists are identical depends on how the front end
                    // made them (HTCondor's list representations): its question.
                    return Err(Halt::NeedReference);
                }
                Op::Is => bin!(|a, b| ops::compare(Cmp::Is, a, b), ins),
                Op::Isnt => bin!(|a, b| ops::compare(Cmp::Isnt, a, b), ins),
                Op::BitAnd => bin!(|a, b| ops::bitwise(Bit::And, a, b), ins),
                Op::BitOr => bin!(|a, b| ops::bitwise(Bit::Or, a, b), ins),
                Op::BitXor => bin!(|a, b| ops::bitwise(Bit::Xor, a, b), ins),
                Op::Shl => bin!(|a, b| ops::bitwise(Bit::Shl, a, b), ins),
                Op::Shr => bin!(|a, b| ops::bitwise(Bit::Shr, a, b), ins),
                Op::UShr => bin!(|a, b| ops::bitwise(Bit::UShr, a, b), ins),
                Op::And => bin!(ops::and, ins),
                Op::Or => bin!(ops::or, ins),
                Op::CmpK => {
                    let o = form::CmpK::of(ins);
                    let (dst, konst, src, cmp) = (o.dst, o.konst, o.src, o.cmp);
                    let v = ops::compare(cmp, &r!(src), &p.consts[usize::from(konst)]);
                    r!(dst) = v;
                }
                Op::CmpTK => {
                    let o = form::CmpTK::of(ins);
                    let (dst, konst, slot, cmp) = (o.dst, o.konst, o.slot, o.cmp);
                    let slot = slot.get();
                    let k = &p.consts[usize::from(konst)];
                    let side = 1 - me;
                    if side == 1 {
                        if let Some(names) = &mut self.recording {
                            names.push(slot);
                        }
                    }
                    // (Without a target, side 1 is an empty ad: undefined.)
                    let v = match sides.ads[side].get(slot) {
                        Attr::Value(a) => {
                            self.steps += 1;
                            ops::compare(cmp, a, k)
                        }
                        Attr::Absent => ops::compare(cmp, &Value::Undefined, k),
                        Attr::Code(_) => {
                            let (a, d) = self.load(side, slot, sides, host)?;
                            // The instruction has no room for its site: the
                            // program's whole depth bounds it.
                            if let Some(d) = d {
                                depth = depth.max(p.max_depth + 1 + d);
                            }
                            ops::compare(cmp, &a, k)
                        }
                    };
                    r!(dst) = v;
                }
                // `&&` (`||`) decides on a false (true) left side, stored as the
                // boolean, and on error, kept.
                Op::JumpIfFalse | Op::JumpIfTrue => {
                    let form::Branch { cond, target } = form::Branch::of(ins);
                    let decides = ins.op() == Op::JumpIfTrue;
                    let v = &r!(cond);
                    if v.as_bool_equiv() == Some(decides) {
                        r!(cond) = Value::Bool(decides);
                        pc = target as usize;
                    } else if v.is_error() {
                        pc = target as usize;
                    }
                }
                Op::JumpIfDefined => {
                    let form::Branch { cond, target } = form::Branch::of(ins);
                    if !r!(cond).is_undefined() {
                        pc = target as usize;
                    }
                }
                Op::Test => {
                    let form::Test { dst, cond, target } = form::Test::of(ins);
                    let c = &r!(cond);
                    let outcome = match c {
                        Value::Undefined => Some(Value::Undefined),
                        _ if c.as_bool_equiv().is_none() => Some(Value::Error),
                        _ => None,
                    };
                    if let Some(v) = outcome {
                        r!(dst) = v;
                        pc = target as usize;
                    }
                }
                Op::TestTernary => {
                    let form::Test { dst, cond, target } = form::Test::of(ins);
                    let c = &r!(cond);
                    let outcome = match c {
                        Value::Undefined => Some(Value::Undefined),
                        Value::Error => Some(Value::Error),
                        _ if c.as_bool_equiv().is_none() => return Err(Halt::NeedReference),
                        _ => None,
                    };
                    if let Some(v) = outcome {
                        r!(dst) = v;
                        pc = target as usize;
                    }
                }
                Op::JumpIfNot => {
                    let form::Branch { cond, target } = form::Branch::of(ins);
                    if r!(cond).as_bool_equiv() == Some(false) {
                        pc = target as usize;
                    }
                }
                Op::Jump => pc = form::Jump::of(ins).target as usize,
                Op::Index => {
                    let form::Binary { dst, a, b } = form::Binary::of(ins);
                    let v = host.index(&r!(a), &r!(b))?;
                    r!(dst) = v;
                }
                Op::Member => {
                    let form::Member { dst, src, set } = form::Member::of(ins);
                    let v = p.sets[set as usize].contains(&r!(src));
                    r!(dst) = v;
                }
                Op::SelectPath => {
                    let select = form::SelectPath::of(ins);
                    let (v, d) = self.select_path(p, select, me, sides, host)?;
                    depth = depth.max(d);
                    r!(select.dst) = v;
                }
                Op::Call => {
                    let o = form::Call::of(ins);
                    let (dst, first, argc, native) = (o.dst, o.first, o.argc, o.native);
                    let first = usize::from(first);
                    let args = frame
                        .get(first..first + usize::from(argc))
                        .ok_or(Halt::NeedReference)?;
                    let v = self.calls.call(host, native.get(), args)?;
                    r!(dst) = v;
                }
                Op::TargetCached => {
                    let form::TargetCached {
                        dst,
                        depth: site,
                        sub,
                    } = form::TargetCached::of(ins);
                    let sub = &p.target_only[sub as usize];
                    let target = sides.ads[1 - me] as *const CompiledAd as usize;
                    let key = (target, sub.key);
                    // (A closed value's evaluation runs it, for the names it reads.)
                    let cached = match self.recording {
                        None => self.target_cache.get(&key),
                        Some(_) => None,
                    };
                    let v = match cached {
                        Some(v) => v.clone(),
                        None => {
                            let outer = std::mem::take(&mut self.read_code);
                            let (v, d) = self.run(&sub.code, me, sides, host)?;
                            depth = depth.max(u32::from(site) + d);
                            if !self.read_code && sides.has_target && self.recording.is_none() {
                                self.target_cache.insert(key, v.clone());
                            }
                            self.read_code |= outer;
                            v
                        }
                    };
                    r!(dst) = v;
                }
                Op::InlineEnter => {
                    let form::InlineEnter { dst, length, slot } = form::InlineEnter::of(ins);
                    let i = slot as usize;
                    if self.memo[me].len() <= i {
                        self.memo[me].resize(i + 1, Memo::Empty);
                    }
                    match self.memo[me][i] {
                        Memo::InProgress => {
                            // A circular reference, exactly as `load` finds it.
                            self.cycle = true;
                            r!(dst) = Value::Undefined;
                            pc += usize::from(length);
                        }
                        Memo::Empty => {
                            self.memo[me][i] = Memo::InProgress;
                            self.touched.push((me, slot));
                        }
                        // Evaluated before without meeting a cycle: it cannot be
                        // on one now.
                        Memo::Done(..) => {}
                    }
                }
                Op::InlineLeave => {
                    let m = &mut self.memo[me][form::InlineLeave::of(ins).slot as usize];
                    if matches!(m, Memo::InProgress) {
                        *m = Memo::Empty;
                    }
                }
                Op::List => {
                    let form::List { dst, first, count } = form::List::of(ins);
                    let first = usize::from(first);
                    let items = frame
                        .get(first..first + count as usize)
                        .ok_or(Halt::NeedReference)?;
                    let v = self.calls.list(host, items)?;
                    r!(dst) = v;
                }
                Op::FreshEnter => {
                    let flag = form::Fresh::of(ins).flag;
                    r!(flag) = Value::Bool(std::mem::take(&mut self.read_code));
                }
                Op::FreshLeave => {
                    if self.read_code {
                        return Err(Halt::NeedReference);
                    }
                    let flag = form::Fresh::of(ins).flag;
                    self.read_code = matches!(r!(flag), Value::Bool(true));
                }
                Op::Fail => return Err(Halt::Fail),
                Op::Reference => return Err(Halt::NeedReference),
                Op::Ret => {
                    let src = form::Ret::of(ins).src;
                    return Ok((std::mem::take(&mut r!(src)), depth));
                }
            }
        }
    }
}

/// The levels below its site a [`crate::program::PathSelect`] may take in
/// HTCondor, at most: a selection and a dereference per name, and a field
/// computed from its record's literals (four references deep, 64 nodes each, at
/// most: see the front end's `compile::RecordFields`).
pub(crate) fn path_depth(path: &crate::program::PathSelect) -> u32 {
    2 * path.steps.len() as u32 + 2 + 4 * 65
}
