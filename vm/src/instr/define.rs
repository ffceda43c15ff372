//! The macro that turns the instruction table (`table.rs`) into the instruction
//! set's code: the [`Op`](super::Op) enum, one operand struct per shape in
//! [`form`](super::form), and what each op is (its shape, the tiers that run it).
//!
//! Everything that packs operands into an [`Instr`](super::Instr) or reads them
//! out is generated here from the table's `@ Place` of each operand, so no other
//! code knows where an operand sits.

/// Generates the instruction set from its table: see `table.rs` for the input.
macro_rules! instructions {
    (
        forms {
            $(
                $(#[doc = $form_doc:literal])*
                $form:ident { $($field:ident : $kind:ident ($ty:ty) @ $place:expr),* $(,)? }
                    prints $print:literal;
            )*
        }
        ops {
            $(
                $(#[doc = $op_doc:literal])*
                $op:ident : $op_form:ident,
                    machine $machine:ident, lanes $lanes:ident, verdicts $verdicts:ident;
            )*
        }
    ) => {
        /// An operation code. Each variant's operands are those of its
        /// [`Shape`]'s struct in [`form`]; its tiers are [`Op::tiers`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum Op {
            $($(#[doc = $op_doc])* $op,)*
        }

        /// The operand layouts: which operands an instruction has. Each names
        /// the struct of the same name in [`form`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Shape {
            $($(#[doc = $form_doc])* $form,)*
        }

        impl Op {
            /// Every operation, in code order.
            pub const ALL: &'static [Op] = &[$(Op::$op,)*];

            /// The layout of this operation's operands.
            pub const fn shape(self) -> Shape {
                match self {
                    $(Op::$op => Shape::$op_form,)*
                }
            }

            /// Which tiers of the machine run this operation.
            pub const fn tiers(self) -> Tiers {
                match self {
                    $(Op::$op => Tiers {
                        machine: Runs::$machine,
                        lanes: Runs::$lanes,
                        verdicts: Runs::$verdicts,
                    },)*
                }
            }
        }

        /// One struct of named, typed operands per [`Shape`]: the only way to
        /// make an [`Instr`] (`instr`) or read one (`of`).
        pub mod form {
            #[allow(unused_imports)]
            use super::{Cmp, Instr, Kind, Op, Operand, Place, Shape, U24};

            $(
                $(#[doc = $form_doc])*
                #[doc = ""]
                #[doc = concat!("Printed `", $print, "`.")]
                #[derive(Clone, Copy, Debug, PartialEq, Eq)]
                pub struct $form {
                    $(
                        #[doc = concat!("A ", stringify!($kind), " operand.")]
                        pub $field: $ty,
                    )*
                }

                impl $form {
                    // Each operand's type fits where it sits.
                    const _FITS: () = {
                        $(assert!(<$ty as Operand>::BITS <= Place::width($place));)*
                    };

                    /// The operands' kinds, in order.
                    pub const KINDS: &'static [(&'static str, Kind)] =
                        &[$((stringify!($field), Kind::$kind),)*];

                    /// The instruction `op` (an operation of this shape) with these
                    /// operands.
                    #[inline(always)]
                    pub fn instr(self, op: Op) -> Instr {
                        #[allow(clippy::let_unit_value)]
                        let () = Self::_FITS;
                        debug_assert_eq!(op.shape(), Shape::$form, "{op:?}");
                        #[allow(unused_mut)]
                        let mut ins = Instr::bare(op);
                        $(ins.put($place, Operand::bits(self.$field));)*
                        ins
                    }

                    /// The operands of `ins`, an instruction of this shape.
                    #[inline(always)]
                    #[allow(unused_variables)]
                    pub fn of(ins: Instr) -> Self {
                        debug_assert_eq!(ins.op().shape(), Shape::$form, "{:?}", ins.op());
                        $form {
                            $($field: Operand::from_bits_masked(ins.get($place)),)*
                        }
                    }

                    /// These operands, each passed through `f` with its kind;
                    /// `None` when `f` refuses one or its result does not fit.
                    #[allow(unused_mut, unused_variables)]
                    pub(super) fn mapped(self, mut f: impl FnMut(Kind, u32) -> Option<u32>) -> Option<Self> {
                        Some($form {
                            $($field: Operand::from_bits(f(Kind::$kind, Operand::bits(self.$field))?)?,)*
                        })
                    }
                }

                impl std::fmt::Display for $form {
                    #[allow(unused_variables)]
                    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        let $form { $($field),* } = *self;
                        write!(f, $print)
                    }
                }
            )*
        }

        /// An instruction's operands, by shape.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Operands {
            $($(#[doc = $form_doc])* $form(form::$form),)*
        }

        impl Instr {
            /// The operands of this instruction.
            pub fn operands(self) -> Operands {
                match self.op().shape() {
                    $(Shape::$form => Operands::$form(form::$form::of(self)),)*
                }
            }

            /// This instruction with each operand passed through `f` with its
            /// kind (relocation); `None` when `f` refuses one or its result does
            /// not fit where the operand sits.
            pub fn map_operands(self, f: impl FnMut(Kind, u32) -> Option<u32>) -> Option<Instr> {
                Some(match self.operands() {
                    $(Operands::$form(o) => o.mapped(f)?.instr(self.op()),)*
                })
            }
        }

        impl std::fmt::Display for Operands {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match self {
                    $(Operands::$form(o) => o.fmt(f),)*
                }
            }
        }
    };
}

pub(super) use instructions;
