//! Expression trees: the parsed form of a ClassAd expression.

use std::sync::Arc;

use crate::builtins::Builtin;
use crate::classad::ClassAd;
use crate::name::Name;
use crate::value::Value;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Plus,
    Not,
    BitNot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Or,
    And,
    BitOr,
    BitXor,
    BitAnd,
    Eq,
    Ne,
    /// `=?=` / `is`: same type and identical value.
    Is,
    /// `=!=` / `isnt`.
    Isnt,
    Lt,
    Le,
    Gt,
    Ge,
    Shl,
    Shr,
    UShr,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

impl BinOp {
    /// The operator as HTCondor's unparser writes it.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Or => "||",
            BinOp::And => "&&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::BitAnd => "&",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Is => "is",
            BinOp::Isnt => "isnt",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::UShr => ">>>",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Mod => "%",
        }
    }
}

impl UnOp {
    pub fn symbol(self) -> &'static str {
        match self {
            UnOp::Neg => "-",
            UnOp::Plus => "+",
            UnOp::Not => "!",
            UnOp::BitNot => "~",
        }
    }
}

/// A function call; `func` is resolved once, at parse time, from the case-insensitive table.
#[derive(Clone, Debug)]
pub struct Call {
    pub name: Arc<str>,
    pub func: Option<&'static Builtin>,
    pub args: Vec<Expr>,
}

#[derive(Clone, Debug)]
pub enum Expr {
    /// A literal scalar: integer, real, string, boolean, undefined or error.
    Lit(Value),
    /// A bare attribute name (`Memory`), including the scope names MY, TARGET, PARENT.
    Attr(Name),
    /// `.name`: looked up from the outermost ad of the current scope.
    Root(Name),
    /// `base.name`: attribute selection from an ad (or from each ad of a list).
    Select(Box<Expr>, Name),
    /// `base[index]`: list subscript or ad lookup by string.
    Index(Box<(Expr, Expr)>),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<(Expr, Expr)>),
    /// `c ? t : f`
    Cond(Box<(Expr, Expr, Expr)>),
    /// `c ?: f` (the value of c unless it is undefined).
    Elvis(Box<(Expr, Expr)>),
    Call(Box<Call>),
    List(Arc<Vec<Expr>>),
    Ad(Arc<ClassAd>),
    Paren(Box<Expr>),
}

impl Expr {
    /// True for literal scalars, the list items that come back to Python as plain values.
    pub fn is_literal(&self) -> bool {
        matches!(self, Expr::Lit(_))
    }

    pub fn int(i: i64) -> Expr {
        Expr::Lit(Value::Int(i))
    }

    pub fn string(s: &str) -> Expr {
        Expr::Lit(Value::str(s))
    }

    /// Structural equality, names compared case-insensitively (the parse/unparse round trip).
    pub fn same_as(&self, other: &Expr) -> bool {
        crate::compare::same_expr(self, other)
    }
}

/// Dropping a tree without recursion: a long operator chain (`a || b || ...`, thousands
/// deep on the left) would otherwise overflow the stack in the compiler's drop glue.
impl Drop for Expr {
    fn drop(&mut self) {
        if matches!(
            self,
            Expr::Lit(_) | Expr::Attr(_) | Expr::Root(_) | Expr::List(_) | Expr::Ad(_)
        ) {
            return; // no boxed children: the common case, kept cheap
        }
        let mut pending: Vec<Expr> = Vec::new();
        take_children(self, &mut pending);
        while let Some(mut e) = pending.pop() {
            take_children(&mut e, &mut pending);
            // `e` now has no children left: dropping it recurses no further.
        }
    }
}

/// Move the boxed children of `e` (not lists or ads, which are shared) into `out`.
fn take_children(e: &mut Expr, out: &mut Vec<Expr>) {
    let hole = || Expr::Lit(Value::Undefined);
    match e {
        Expr::Binary(_, p) | Expr::Index(p) | Expr::Elvis(p) => {
            out.push(std::mem::replace(&mut p.0, hole()));
            out.push(std::mem::replace(&mut p.1, hole()));
        }
        Expr::Cond(t) => {
            out.push(std::mem::replace(&mut t.0, hole()));
            out.push(std::mem::replace(&mut t.1, hole()));
            out.push(std::mem::replace(&mut t.2, hole()));
        }
        Expr::Unary(_, x) | Expr::Paren(x) | Expr::Select(x, _) => {
            out.push(std::mem::replace(&mut **x, hole()));
        }
        Expr::Call(c) => out.append(&mut c.args),
        _ => {}
    }
}
