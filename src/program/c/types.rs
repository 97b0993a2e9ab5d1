//! C types as the front end models them: every scalar (integer, `_Bool`, pointer,
//! mutex) is one cell, a location of the program; structs and arrays are consecutive
//! cells. Typedefs and struct tags are resolved when first used, so the many types
//! of system headers that a program never uses are never looked at.

use super::error::{err, CErr, R};
use crate::program::Val;
use lang_c::ast::*;
use lang_c::span::{Node, Span};
use std::collections::HashMap;

/// A C type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Type {
    Void,
    /// Every integer type (as a 64-bit machine integer).
    Int,
    /// `_Bool`: stores turn a value into 0 or 1.
    Bool,
    Ptr(Box<Type>),
    Array(Box<Type>, u32),
    /// Index into [`Types::structs`].
    Struct(usize),
    /// `pthread_mutex_t`: one cell, 0 when free.
    Mutex,
    /// `pthread_t`: known when the program is read; its cell is never accessed.
    Handle,
    /// A function designator (a thread's start routine).
    Func(String),
    /// An `_Atomic` object's type: a store to it is a sequentially consistent store
    /// (`xchg`), `+=`, `-=`, `++` and `--` on it locked read-modify-writes; its value
    /// is of the type inside.
    Atomic(Box<Type>),
}

impl Type {
    pub fn is_scalar(&self) -> bool {
        match self {
            Type::Atomic(t) => t.is_scalar(),
            t => matches!(
                t,
                Type::Int | Type::Bool | Type::Ptr(_) | Type::Mutex | Type::Handle
            ),
        }
    }

    /// The type without `_Atomic` (a value's type).
    pub fn plain(&self) -> &Type {
        match self {
            Type::Atomic(t) => t.plain(),
            t => t,
        }
    }

    pub fn is_atomic(&self) -> bool {
        matches!(self, Type::Atomic(_))
    }

    /// `_Atomic T` (once: `_Atomic _Atomic T` is `_Atomic T`).
    pub fn atomic(self) -> Type {
        match self {
            Type::Atomic(_) => self,
            t => Type::Atomic(Box::new(t)),
        }
    }

    /// Whether pointers to `self` may point at a cell of type `other` (integer types
    /// and pointer types are each one kind).
    pub fn same_kind(&self, other: &Type) -> bool {
        match (self.plain(), other.plain()) {
            (Type::Int | Type::Bool, Type::Int | Type::Bool) => true,
            (Type::Ptr(_), Type::Ptr(_)) => true,
            (a, b) => a == b,
        }
    }

    /// The element type of an array or the target of a pointer.
    pub fn pointee(&self) -> Option<&Type> {
        match self {
            Type::Ptr(t) | Type::Array(t, _) => Some(t),
            _ => None,
        }
    }
}

/// A struct: its fields with their offsets in cells.
#[derive(Clone, Debug)]
pub struct StructDef {
    pub name: String,
    pub fields: Vec<(String, Type, u32)>,
    pub cells: u32,
}

/// The translation unit's types, enumeration constants and typedefs.
#[derive(Default)]
pub struct Types<'a> {
    pub structs: Vec<StructDef>,
    tags: HashMap<String, usize>,
    /// Tags named before their definition (a pointer to an incomplete struct).
    pending: HashMap<String, &'a Node<StructType>>,
    typedefs: HashMap<String, Typedef<'a>>,
    pub enums: HashMap<String, Val>,
    /// Definitions being resolved, one inside the other (bounded: [`MAX_TYPE_DEPTH`]).
    depth: usize,
}

/// How deep type definitions may be resolved one inside another (a typedef of a
/// typedef, a struct with a field of a struct type defined elsewhere): resolution
/// recurses, and no bracket shows this nesting in the text
/// ([`super::nesting`] bounds the rest), so deeper is an input error here, never a
/// stack overflow (bug: a_chain_of_types_is_an_input_error).
pub const MAX_TYPE_DEPTH: usize = 256;

enum Typedef<'a> {
    Resolved(Type),
    Pending(&'a [Node<DeclarationSpecifier>], &'a Node<Declarator>),
}

/// The names of the special types: `pthread_mutex_t` and `pthread_t`.
fn special(name: &str) -> Option<Type> {
    match name {
        "pthread_mutex_t" => Some(Type::Mutex),
        "pthread_t" => Some(Type::Handle),
        _ => None,
    }
}

impl<'a> Types<'a> {
    /// Cells of a type (a struct's sum of fields).
    pub fn cells(&self, t: &Type) -> u32 {
        match t {
            Type::Array(e, n) => self.cells(e) * n,
            Type::Struct(s) => self.structs[*s].cells,
            Type::Atomic(t) => self.cells(t),
            Type::Void | Type::Func(_) => 0,
            _ => 1,
        }
    }

    /// Records a `typedef` declaration's names, to be resolved on first use. A
    /// redefinition by the name itself (`typedef T T;`, the same type, as C11 allows)
    /// keeps the definition it repeats, which it would otherwise resolve to, without
    /// end (bug: a_typedef_repeated_by_its_name_is_read).
    pub fn typedef(&mut self, d: &'a Declaration) {
        for i in &d.declarators {
            if let Some(name) = declarator_name(&i.node.declarator.node) {
                let itself = i.node.declarator.node.derived.is_empty()
                    && type_specs(&d.specifiers).any(
                        |s| matches!(&s.node, TypeSpecifier::TypedefName(n) if n.node.name == name),
                    );
                if itself && self.typedefs.contains_key(&name) {
                    continue;
                }
                let t = match special(&name) {
                    Some(t) => Typedef::Resolved(t),
                    None => Typedef::Pending(&d.specifiers, &i.node.declarator),
                };
                self.typedefs.insert(name, t);
            }
        }
    }

    /// The type named by declaration specifiers (registering struct tags and
    /// enumeration constants they define).
    pub fn base(
        &mut self,
        specs: impl Iterator<Item = &'a Node<TypeSpecifier>>,
        span: Span,
    ) -> R<Type> {
        let mut ints = 0;
        let mut out = None;
        for s in specs {
            let t = match &s.node {
                TypeSpecifier::Void => Type::Void,
                TypeSpecifier::Char
                | TypeSpecifier::Short
                | TypeSpecifier::Int
                | TypeSpecifier::Long
                | TypeSpecifier::Signed
                | TypeSpecifier::Unsigned => {
                    ints += 1;
                    continue;
                }
                TypeSpecifier::Bool => Type::Bool,
                TypeSpecifier::Float
                | TypeSpecifier::Double
                | TypeSpecifier::Complex
                | TypeSpecifier::TS18661Float(_) => {
                    return err(s.span, "floating-point types are not supported")
                }
                TypeSpecifier::Atomic(t) => self.type_name(t)?.atomic(),
                TypeSpecifier::TypeOf(_) => return err(s.span, "`typeof` is not supported"),
                TypeSpecifier::Enum(e) => self.enumeration(&e.node)?,
                TypeSpecifier::Struct(st) => self.structure(st)?,
                TypeSpecifier::TypedefName(id) => self.named(&id.node.name, id.span)?,
            };
            out = Some(t);
        }
        match (out, ints) {
            (Some(t), 0) => Ok(t),
            (None, n) if n > 0 => Ok(Type::Int),
            (None, _) => err(span, "a declaration without a type"),
            (Some(_), _) => err(span, "conflicting type specifiers"),
        }
    }

    /// The type a declaration's specifiers give, `_Atomic` when qualified so.
    pub fn declaration_base(
        &mut self,
        specs: &'a [Node<DeclarationSpecifier>],
        span: Span,
    ) -> R<Type> {
        let t = self.base(type_specs(specs), span)?;
        let atomic = specs.iter().any(|s| {
            matches!(&s.node, DeclarationSpecifier::TypeQualifier(q) if q.node == TypeQualifier::Atomic)
        });
        Ok(if atomic { t.atomic() } else { t })
    }

    /// The type a struct field's or a type name's specifiers give, `_Atomic` when
    /// qualified so.
    fn qualified_base(&mut self, specs: &'a [Node<SpecifierQualifier>], span: Span) -> R<Type> {
        let t = self.base(
            specs.iter().filter_map(|s| match &s.node {
                SpecifierQualifier::TypeSpecifier(t) => Some(t),
                _ => None,
            }),
            span,
        )?;
        let atomic = specs.iter().any(|s| {
            matches!(&s.node, SpecifierQualifier::TypeQualifier(q) if q.node == TypeQualifier::Atomic)
        });
        Ok(if atomic { t.atomic() } else { t })
    }

    /// `f` one definition deeper: an error past [`MAX_TYPE_DEPTH`].
    fn deeper<T>(&mut self, span: Span, f: impl FnOnce(&mut Self) -> R<T>) -> R<T> {
        if self.depth >= MAX_TYPE_DEPTH {
            return err(
                span,
                format!("types defined more than {MAX_TYPE_DEPTH} deep, one in another"),
            );
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    fn named(&mut self, name: &str, span: Span) -> R<Type> {
        match self.typedefs.get(name) {
            Some(Typedef::Resolved(t)) => Ok(t.clone()),
            Some(Typedef::Pending(specs, decl)) => {
                let (specs, decl) = (*specs, *decl);
                let t = self.deeper(span, |s| {
                    let base = s.declaration_base(specs, span)?;
                    Ok(s.declared(base, &decl.node)?.1)
                })?;
                self.typedefs
                    .insert(name.to_string(), Typedef::Resolved(t.clone()));
                Ok(t)
            }
            None => err(span, format!("unknown type `{name}`")),
        }
    }

    fn enumeration(&mut self, e: &EnumType) -> R<Type> {
        let mut next = 0;
        for en in &e.enumerators {
            if let Some(x) = &en.node.expression {
                next = self.constant(x)?;
            }
            self.enums
                .insert(en.node.identifier.node.name.clone(), next);
            next += 1;
        }
        Ok(Type::Int)
    }

    fn structure(&mut self, st: &'a Node<StructType>) -> R<Type> {
        if st.node.kind.node == StructKind::Union {
            return err(st.span, "unions are not supported");
        }
        let tag = st.node.identifier.as_ref().map(|i| i.node.name.clone());
        let Some(decls) = &st.node.declarations else {
            // lang-c reads `struct *p` (neither a tag nor fields; gcc refuses it).
            let Some(tag) = tag else {
                return err(st.span, "a struct with neither a tag nor fields");
            };
            if let Some(&i) = self.tags.get(&tag) {
                return Ok(Type::Struct(i));
            }
            if let Some(def) = self.pending.get(&tag).copied() {
                return self.deeper(st.span, |s| s.structure(def));
            }
            return err(st.span, format!("struct `{tag}` has no definition"));
        };
        if let Some(t) = &tag {
            if let Some(&i) = self.tags.get(t) {
                return Ok(Type::Struct(i));
            }
        }
        let id = self.structs.len();
        let name = tag.clone().unwrap_or_else(|| format!("<anonymous {id}>"));
        self.structs.push(StructDef {
            name,
            fields: Vec::new(),
            cells: 0,
        });
        if let Some(t) = tag {
            self.tags.insert(t, id);
        }
        let mut fields = Vec::new();
        let mut off = 0u32;
        for d in decls {
            let StructDeclaration::Field(f) = &d.node else {
                continue;
            };
            let base = self.qualified_base(&f.node.specifiers, f.span)?;
            for sd in &f.node.declarators {
                if sd.node.bit_width.is_some() {
                    return err(sd.span, "bit fields are not supported");
                }
                let Some(decl) = &sd.node.declarator else {
                    return err(sd.span, "anonymous struct members are not supported");
                };
                let (name, t) = self.declared(base.clone(), &decl.node)?;
                let name = name.unwrap_or_default();
                let c = self.cells(&t);
                fields.push((name, t, off));
                // Bounded as an array is: struct sizes doubling overflowed `u32`.
                off = off
                    .checked_add(c)
                    .filter(|&o| o <= MAX_ARRAY)
                    .ok_or_else(|| {
                        CErr::new(sd.span, format!("an object of more than {MAX_ARRAY} cells"))
                    })?;
            }
        }
        self.structs[id].fields = fields;
        self.structs[id].cells = off;
        Ok(Type::Struct(id))
    }

    /// Remembers a struct tag's definition met inside a declaration of other names,
    /// so that a later `struct tag` finds it; and declares the constants of an
    /// enumeration defined there, which a declaration without declarators
    /// (`enum { A, B };`) or a typedef never used would otherwise never declare (bug:
    /// enumeration_constants_are_declared_with_their_enum). An enumerator that is not
    /// a constant stops them; its error comes where the enumeration is used.
    pub fn note_tags(&mut self, specs: &'a [Node<DeclarationSpecifier>]) {
        for s in type_specs(specs) {
            match &s.node {
                TypeSpecifier::Struct(st) => {
                    if let (Some(t), Some(_)) = (&st.node.identifier, &st.node.declarations) {
                        self.pending.insert(t.node.name.clone(), st);
                    }
                }
                TypeSpecifier::Enum(e) => {
                    let _ = self.enumeration(&e.node);
                }
                _ => {}
            }
        }
    }

    /// The name and type a declarator gives to `base`: pointers wrap the base, then
    /// array and function parts apply from the innermost out.
    pub fn declared(&mut self, base: Type, d: &'a Declarator) -> R<(Option<String>, Type)> {
        let mut t = base;
        let mut rest = Vec::new();
        for x in &d.derived {
            match &x.node {
                DerivedDeclarator::Pointer(_) if rest.is_empty() => t = Type::Ptr(Box::new(t)),
                _ => rest.push(x),
            }
        }
        for x in rest.into_iter().rev() {
            t = match &x.node {
                DerivedDeclarator::Pointer(q) => {
                    let atomic = q.iter().any(|q| {
                        matches!(&q.node, PointerQualifier::TypeQualifier(t) if t.node == TypeQualifier::Atomic)
                    });
                    let p = Type::Ptr(Box::new(t));
                    if atomic {
                        p.atomic()
                    } else {
                        p
                    }
                }
                DerivedDeclarator::Array(a) => {
                    let n = match &a.node.size {
                        ArraySize::VariableExpression(e) | ArraySize::StaticExpression(e) => {
                            let n = self.constant(e)?;
                            u32::try_from(n)
                                .ok()
                                .filter(|&n| n <= MAX_ARRAY)
                                .ok_or_else(|| CErr::new(e.span, format!("array size {n}")))?
                        }
                        _ => 0,
                    };
                    if self.cells(&t).checked_mul(n).is_none_or(|c| c > MAX_ARRAY) {
                        return err(x.span, format!("an object of more than {MAX_ARRAY} cells"));
                    }
                    Type::Array(Box::new(t), n)
                }
                // A function's own type: only its return type matters here.
                DerivedDeclarator::Function(_) | DerivedDeclarator::KRFunction(_) => t,
                DerivedDeclarator::Block(_) => return err(x.span, "blocks are not supported"),
            };
        }
        match &d.kind.node {
            DeclaratorKind::Identifier(i) => Ok((Some(i.node.name.clone()), t)),
            DeclaratorKind::Abstract => Ok((None, t)),
            DeclaratorKind::Declarator(inner) => self.declared(t, &inner.node),
        }
    }

    /// A type name (of a cast).
    pub fn type_name(&mut self, tn: &'a Node<TypeName>) -> R<Type> {
        let base = self.qualified_base(&tn.node.specifiers, tn.span)?;
        match &tn.node.declarator {
            Some(d) => Ok(self.declared(base, &d.node)?.1),
            None => Ok(base),
        }
    }

    /// An integer constant expression (array sizes, enumerators, case labels).
    pub fn constant(&mut self, e: &Node<Expression>) -> R<Val> {
        use BinaryOperator as B;
        match &e.node {
            Expression::Constant(c) => literal(c),
            Expression::Identifier(i) => {
                self.enums.get(&i.node.name).copied().ok_or_else(|| {
                    CErr::new(e.span, format!("`{}` is not a constant", i.node.name))
                })
            }
            Expression::Cast(c) => self.constant(&c.node.expression),
            Expression::UnaryOperator(u) => {
                let v = self.constant(&u.node.operand)?;
                match u.node.operator.node {
                    UnaryOperator::Minus => Ok(v.wrapping_neg()),
                    UnaryOperator::Plus => Ok(v),
                    UnaryOperator::Complement => Ok(!v),
                    UnaryOperator::Negate => Ok((v == 0) as Val),
                    _ => err(e.span, "not a constant expression"),
                }
            }
            Expression::BinaryOperator(b) => {
                let x = self.constant(&b.node.lhs)?;
                let y = self.constant(&b.node.rhs)?;
                let op = match b.node.operator.node {
                    B::Plus => crate::program::BinOp::Add,
                    B::Minus => crate::program::BinOp::Sub,
                    B::Multiply => crate::program::BinOp::Mul,
                    B::Divide | B::Modulo if y == 0 => return err(e.span, "division by 0"),
                    B::Divide => crate::program::BinOp::Div,
                    B::Modulo => crate::program::BinOp::Rem,
                    B::ShiftLeft => crate::program::BinOp::Shl,
                    B::ShiftRight => crate::program::BinOp::Shr,
                    B::BitwiseAnd => crate::program::BinOp::And,
                    B::BitwiseOr => crate::program::BinOp::Or,
                    B::BitwiseXor => crate::program::BinOp::Xor,
                    B::Less => crate::program::BinOp::Lt,
                    B::LessOrEqual => crate::program::BinOp::Le,
                    B::Greater => crate::program::BinOp::Gt,
                    B::GreaterOrEqual => crate::program::BinOp::Ge,
                    B::Equals => crate::program::BinOp::Eq,
                    B::NotEquals => crate::program::BinOp::Ne,
                    B::LogicalAnd => return Ok((x != 0 && y != 0) as Val),
                    B::LogicalOr => return Ok((x != 0 || y != 0) as Val),
                    _ => return err(e.span, "not a constant expression"),
                };
                Ok(op.apply(x, y))
            }
            Expression::Conditional(c) => {
                if self.constant(&c.node.condition)? != 0 {
                    self.constant(&c.node.then_expression)
                } else {
                    self.constant(&c.node.else_expression)
                }
            }
            _ => err(e.span, "not a constant expression"),
        }
    }
}

/// The longest array the front end lays out.
pub const MAX_ARRAY: u32 = 1 << 16;

/// The type specifiers among declaration specifiers.
pub fn type_specs(
    specs: &[Node<DeclarationSpecifier>],
) -> impl Iterator<Item = &Node<TypeSpecifier>> {
    specs.iter().filter_map(|s| match &s.node {
        DeclarationSpecifier::TypeSpecifier(t) => Some(t),
        _ => None,
    })
}

/// The name a declarator declares, if any.
pub fn declarator_name(d: &Declarator) -> Option<String> {
    match &d.kind.node {
        DeclaratorKind::Identifier(i) => Some(i.node.name.clone()),
        DeclaratorKind::Abstract => None,
        DeclaratorKind::Declarator(inner) => declarator_name(&inner.node),
    }
}

/// The value of an integer or character literal.
pub fn literal(c: &Node<Constant>) -> R<Val> {
    match &c.node {
        Constant::Integer(i) => {
            let radix = match i.base {
                IntegerBase::Decimal => 10,
                IntegerBase::Octal => 8,
                IntegerBase::Hexadecimal => 16,
                IntegerBase::Binary => 2,
            };
            let digits = i.number.trim_start_matches("0x").trim_start_matches("0X");
            let digits = match i.base {
                IntegerBase::Binary => digits.trim_start_matches("0b").trim_start_matches("0B"),
                _ => digits,
            };
            u64::from_str_radix(if digits.is_empty() { "0" } else { digits }, radix)
                .map(|v| v as Val)
                .map_err(|_| CErr::new(c.span, format!("integer literal `{}`", i.number)))
        }
        Constant::Character(s) => {
            let inner = s.trim_start_matches(['L', 'u', 'U']).trim_matches('\'');
            let v = match inner {
                "\\0" => 0,
                "\\n" => 10,
                "\\t" => 9,
                "\\\\" => 92,
                "\\'" => 39,
                s if s.chars().count() == 1 => s.chars().next().expect("one") as Val,
                _ => return err(c.span, format!("character literal {s}")),
            };
            Ok(v)
        }
        Constant::Float(_) => err(c.span, "floating-point literals are not supported"),
    }
}

/// The values of `__VERIFIER_nondet_TYPE`'s type, by the name's suffix (integers are
/// 64-bit in the IR, so `unsigned long`'s top half is left out).
pub fn nondet_domain(ty: &str) -> Option<(crate::program::Val, crate::program::Val)> {
    Some(match ty {
        "bool" | "_Bool" => (0, 1),
        "char" | "schar" => (i8::MIN.into(), i8::MAX.into()),
        "uchar" => (0, u8::MAX.into()),
        "short" => (i16::MIN.into(), i16::MAX.into()),
        "ushort" => (0, u16::MAX.into()),
        "int" => (i32::MIN.into(), i32::MAX.into()),
        "uint" | "unsigned" | "u32" => (0, u32::MAX.into()),
        "long" | "longlong" | "loff_t" => (i64::MIN, i64::MAX),
        "ulong" | "ulonglong" | "size_t" | "u64" => (0, i64::MAX),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use crate::program::c::read_preprocessed;
    use crate::program::Program;

    fn read(text: &str) -> Program {
        read_preprocessed(text, "t.i", &Default::default()).unwrap_or_else(|e| panic!("{e}"))
    }

    fn init(p: &Program, name: &str) -> i64 {
        p.init[p.locs.iter().position(|l| l == name).expect("declared")]
    }

    #[test]
    fn enumeration_constants_are_declared_with_their_enum() {
        let p = read(
            "enum { A0, A1 = 5, A2 };\nenum e { B0 = A2 };\ntypedef enum { C0 = 3, C1 } E;\n\
             int x = A2;\nint y = B0;\nint z = C1;\nint main(void) { return A0; }\n",
        );
        assert_eq!([init(&p, "x"), init(&p, "y"), init(&p, "z")], [6, 6, 4]);
        // One that is not a constant stops them, and is an error where used.
        let e = read_preprocessed(
            "enum { D0 = sizeof(int) };\nint main(void) { return D0; }\n",
            "t.i",
            &Default::default(),
        )
        .expect_err("not a constant");
        assert!(e.to_string().starts_with("t.i:2:"), "{e}");
    }

    /// bug: a_struct_with_neither_tag_nor_fields_is_an_error — `void *thr2(struct *_)`
    /// in a mutated SV-COMP task (fuzz_c's input 163,578 of 10⁶) panicked: lang-c reads
    /// a `struct` with neither, and the front end expected a tag.
    #[test]
    fn a_struct_with_neither_tag_nor_fields_is_an_error() {
        for text in [
            "struct *p;\nint main(void) { return 0; }\n",
            "int x;\nvoid *thr2(struct *_) { x = 1; return 0; }\n\
             int main(void) { pthread_t t; pthread_create(&t, 0, thr2, 0); return 0; }\n",
        ] {
            let text = format!("typedef unsigned long pthread_t;\n{text}");
            let e = read_preprocessed(&text, "t.i", &Default::default()).expect_err("not C");
            assert!(e.to_string().contains("neither a tag nor fields"), "{e}");
            assert!(e.to_string().starts_with("t.i:"), "{e}");
        }
    }

    /// bug: a_struct_is_bounded_as_an_array_is — only arrays were held to
    /// `MAX_ARRAY` cells: two 2¹⁶-cell arrays made a struct of 2¹⁷ locations, and 16
    /// structs each of two of the one before overflowed the cell count (a panic where
    /// overflow is checked, a wrong layout where not).
    #[test]
    fn a_struct_is_bounded_as_an_array_is() {
        let big = "struct s0 { int a[65536]; int b[65536]; };\nstruct s0 g;\nint main(void) { return 0; }\n";
        let doubling = (1..16).fold(
            "struct s0 { int a[32768]; int b[32768]; };\n".to_string(),
            |s, i| {
                s + &format!(
                    "struct s{i} {{ struct s{} a; struct s{} b; }};\n",
                    i - 1,
                    i - 1
                )
            },
        ) + "struct s15 g;\nint main(void) { return 0; }\n";
        for text in [big.to_string(), doubling] {
            let e = read_preprocessed(&text, "t.i", &Default::default()).expect_err("too large");
            assert!(e.to_string().contains("more than 65536 cells"), "{e}");
        }
        let fits = "struct s { int a[32768]; int b[32768]; } g;\nint main(void) { return 0; }\n";
        assert_eq!(read(fits).locs.len(), 65536);
    }

    #[test]
    fn a_typedef_repeated_by_its_name_is_read() {
        let p = read("typedef int T;\ntypedef T T;\nT x = 2;\nint main(void) { return 0; }\n");
        assert_eq!(init(&p, "x"), 2);
    }

    #[test]
    fn a_chain_of_types_is_an_input_error() {
        let typedefs = |n: usize| {
            (1..n).fold("typedef int t0;\n".to_string(), |s, i| {
                s + &format!("typedef t{} t{i};\n", i - 1)
            }) + &format!("t{} g;\nint main(void) {{ return 0; }}\n", n - 1)
        };
        let structs = |n: usize| {
            (1..n).fold("struct s0 { int a; };\n".to_string(), |s, i| {
                s + &format!("struct s{i} {{ struct s{} a; }};\n", i - 1)
            }) + &format!("struct s{} g;\nint main(void) {{ return 0; }}\n", n - 1)
        };
        for text in [typedefs(100), structs(100)] {
            read(&text);
        }
        for text in [
            typedefs(3000),
            structs(3000),
            "typedef int A;\ntypedef A B;\ntypedef B A;\nA x;\nint main(void) { return 0; }\n"
                .into(),
        ] {
            let e = read_preprocessed(&text, "t.i", &Default::default()).expect_err("too deep");
            assert!(e.to_string().contains("more than 256 deep"), "{e}");
            assert!(e.to_string().starts_with("t.i:"), "{e}");
        }
    }
}
