//! Uniform blocks generated from typed Rust fields: one list of `(name, value)` pairs gives
//! both the bytes uploaded and the WGSL struct that reads them, laid out by WGSL's uniform
//! rules, so there is no hand-kept mirror to drift. Declared filters (`pixel_filter!`) build
//! their parameter blocks here; custom kernels declare their uniform struct once with
//! `uniform_struct!`, which gives the `#[repr(C)]` Pod struct (padding computed), its WGSL
//! struct and its `UniformLayout`. `tests/uniform_layout.rs` checks the offsets against naga.

/// A Rust value that has a WGSL uniform type.
pub trait UniformField {
    /// WGSL type name.
    const WGSL: &'static str;
    /// Alignment in the uniform address space (WGSL `AlignOf`).
    const ALIGN: usize;
    /// Size in bytes (WGSL `SizeOf`).
    const SIZE: usize;
    /// The value's bytes, `SIZE` of them.
    fn write(&self, out: &mut [u8]);
}

macro_rules! scalar_field {
    ($t:ty, $wgsl:literal) => {
        impl UniformField for $t {
            const WGSL: &'static str = $wgsl;
            const ALIGN: usize = 4;
            const SIZE: usize = 4;
            fn write(&self, out: &mut [u8]) {
                out.copy_from_slice(&self.to_le_bytes());
            }
        }
    };
}
scalar_field!(f32, "f32");
scalar_field!(u32, "u32");
scalar_field!(i32, "i32");

impl UniformField for bool {
    const WGSL: &'static str = "u32";
    const ALIGN: usize = 4;
    const SIZE: usize = 4;
    fn write(&self, out: &mut [u8]) {
        out.copy_from_slice(&(*self as u32).to_le_bytes());
    }
}

macro_rules! vector_field {
    ($n:literal, $wgsl:literal, $align:literal, $size:literal) => {
        impl UniformField for [f32; $n] {
            const WGSL: &'static str = $wgsl;
            const ALIGN: usize = $align;
            const SIZE: usize = $size;
            fn write(&self, out: &mut [u8]) {
                out.copy_from_slice(bytemuck::cast_slice(self));
            }
        }
    };
}
vector_field!(2, "vec2<f32>", 8, 8);
vector_field!(3, "vec3<f32>", 16, 12);
vector_field!(4, "vec4<f32>", 16, 16);
// Column-major: the 16 numbers are the matrix's four columns in order.
vector_field!(16, "mat4x4<f32>", 16, 64);

/// A 256-entry table of u32 (e.g. `tone_curve`'s packed R, G, B bytes per input byte) as
/// 64 vectors: a uniform array's stride is 16 bytes, so an `array<u32, 256>` would take four
/// times the space.
impl UniformField for [[u32; 4]; 64] {
    const WGSL: &'static str = "array<vec4<u32>, 64>";
    const ALIGN: usize = 16;
    const SIZE: usize = 1024;
    fn write(&self, out: &mut [u8]) {
        out.copy_from_slice(bytemuck::cast_slice(self));
    }
}

/// One field of a generated block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldLayout {
    /// The member's name, as in the WGSL struct.
    pub name: &'static str,
    /// Its WGSL type.
    pub wgsl: &'static str,
    /// Offset in the block, bytes.
    pub offset: usize,
    /// Size, bytes.
    pub size: usize,
}

/// A generated uniform struct: fields at WGSL offsets, padded to a multiple of 16 bytes so
/// blocks can follow each other in a larger struct (the fused kernel's `ChainParams`).
#[derive(Clone, Debug, Default)]
pub struct UniformBlock {
    /// The fields in order.
    pub fields: Vec<FieldLayout>,
    bytes: Vec<u8>,
}

impl UniformBlock {
    /// An empty block.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a field at the next offset its alignment allows.
    pub fn field<T: UniformField>(mut self, name: &'static str, value: &T) -> Self {
        let offset = self.bytes.len().div_ceil(T::ALIGN) * T::ALIGN;
        self.bytes.resize(offset + T::SIZE, 0);
        value.write(&mut self.bytes[offset..offset + T::SIZE]);
        self.fields.push(FieldLayout {
            name,
            wgsl: T::WGSL,
            offset,
            size: T::SIZE,
        });
        self
    }

    /// Size after padding: a multiple of 16, at least 16.
    pub fn padded_size(&self) -> usize {
        self.bytes.len().div_ceil(16).max(1) * 16
    }

    /// The uploaded bytes, padded.
    pub fn bytes(&self) -> Vec<u8> {
        let mut b = self.bytes.clone();
        b.resize(self.padded_size(), 0);
        b
    }

    /// The bytes behind a `width, height, 0, 0` header: the uniform of kernels whose struct
    /// starts with the image size and then holds this block (the stencil and remap shapes).
    pub fn bytes_after_size(&self, width: u32, height: u32) -> Vec<u8> {
        let mut out = Vec::with_capacity(16 + self.padded_size());
        for v in [width, height, 0, 0] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&self.bytes());
        out
    }

    /// The WGSL struct `name` reading these bytes: the fields, then `_pad<n>: u32` words up
    /// to the padded size (explicit, because WGSL does not round a struct of scalars to 16).
    pub fn wgsl_struct(&self, name: &str) -> String {
        let mut s = format!("struct {name} {{\n");
        for f in &self.fields {
            s += &format!("    {}: {},\n", f.name, f.wgsl);
        }
        // A vec3's struct slot ends at its 12 bytes; WGSL places the next member there too.
        let mut end = self.bytes.len();
        let mut k = 0;
        while end < self.padded_size() {
            s += &format!("    _pad{k}: u32,\n");
            end += 4;
            k += 1;
        }
        s + "}\n"
    }
}

/// A uniform struct shared by Rust and WGSL, for the layout test (`tests/uniform_layout.rs`).
/// Written by `uniform_struct!` (`Params::layout(KERNEL_WGSL)`), not by hand.
#[derive(Clone, Copy, Debug)]
pub struct UniformLayout {
    /// A kernel source that reads the struct.
    pub wgsl: &'static str,
    /// The WGSL struct's name.
    pub wgsl_struct: &'static str,
    /// The generated WGSL struct text, which the kernel's module gets beside `wgsl` (the test
    /// parses it before `wgsl`); empty where `wgsl` declares the struct itself.
    pub generated: &'static str,
    /// `size_of` the Rust struct.
    pub rust_size: usize,
    /// The Rust struct's named fields and their offsets (`offset_of!`), compared with the
    /// WGSL members of the same names.
    pub fields: &'static [(&'static str, usize)],
}

/// A member type of a `uniform_struct!`: its WGSL type and its uniform alignment and size.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MemberType {
    /// WGSL type; an array's element type where `count` is not 0.
    pub wgsl: &'static str,
    /// Element count of an `array<wgsl, count>` (stride 16), 0 for a plain member.
    pub count: usize,
    /// Alignment in the uniform address space (WGSL `AlignOf`).
    pub align: usize,
    /// Size in bytes (WGSL `SizeOf`).
    pub size: usize,
}

/// A Rust type that can be a member of a `uniform_struct!`. Its Rust alignment must be at
/// most 4 (scalars and arrays of them), so that the computed padding is the only padding.
pub(crate) trait UniformMember {
    /// The member's WGSL type, alignment and size.
    const MEMBER: MemberType;
}

macro_rules! member_as_field {
    ($($t:ty),*) => {$(
        impl UniformMember for $t {
            const MEMBER: MemberType = MemberType {
                wgsl: <$t as UniformField>::WGSL,
                count: 0,
                align: <$t as UniformField>::ALIGN,
                size: <$t as UniformField>::SIZE,
            };
        }
    )*};
}
member_as_field!(u32, i32, f32, [f32; 2], [f32; 3], [f32; 4]);

/// `array<vec4<f32>, N>`: a uniform array's stride is 16 bytes, so tables are vec4s.
impl<const N: usize> UniformMember for [[f32; 4]; N] {
    const MEMBER: MemberType = MemberType {
        wgsl: "vec4<f32>",
        count: N,
        align: 16,
        size: 16 * N,
    };
}

/// Offset of member `i` under WGSL's uniform rules (each member at the next multiple of its
/// alignment); `i == members.len()` gives the end of the last member.
pub(crate) const fn member_offset(members: &[MemberType], i: usize) -> usize {
    let mut end = 0usize;
    let mut k = 0;
    while k < i {
        end = end.div_ceil(members[k].align) * members[k].align + members[k].size;
        k += 1;
    }
    if i == members.len() {
        end
    } else {
        end.div_ceil(members[i].align) * members[i].align
    }
}

/// Bytes of padding before member `i`.
pub(crate) const fn pad_before(members: &[MemberType], i: usize) -> usize {
    let end = if i == 0 {
        0
    } else {
        member_offset(members, i - 1) + members[i - 1].size
    };
    member_offset(members, i) - end
}

/// The struct's size: the end of its last member rounded up to 16 bytes (at least 16), so
/// that blocks concatenate and every binding size is valid.
pub(crate) const fn padded_size(members: &[MemberType]) -> usize {
    let n = member_offset(members, members.len()).div_ceil(16);
    if n == 0 {
        16
    } else {
        n * 16
    }
}

/// Bytes of padding after the last member.
pub(crate) const fn pad_after(members: &[MemberType]) -> usize {
    padded_size(members) - member_offset(members, members.len())
}

/// Appends `s` at `*at` where `out` has room, counting in any case (a first pass measures).
const fn put(out: &mut [u8], at: &mut usize, s: &str) {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if *at < out.len() {
            out[*at] = b[i];
        }
        *at += 1;
        i += 1;
    }
}

const fn put_number(out: &mut [u8], at: &mut usize, n: usize) {
    let mut digits = [0u8; 20];
    let (mut k, mut v) = (0, n);
    loop {
        digits[k] = b'0' + (v % 10) as u8;
        k += 1;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    while k > 0 {
        k -= 1;
        if *at < out.len() {
            out[*at] = digits[k];
        }
        *at += 1;
    }
}

/// Writes the WGSL struct `name` with `members` (names in `names`) into `out` as far as it
/// has room, then `_pad<k>: u32` words up to the padded size (explicit, as in
/// `UniformBlock::wgsl_struct`: WGSL does not round a struct of scalars to 16); returns the
/// length of the whole text.
const fn write_wgsl_struct(
    out: &mut [u8],
    name: &str,
    names: &[&str],
    members: &[MemberType],
) -> usize {
    let mut at = 0;
    put(out, &mut at, "struct ");
    put(out, &mut at, name);
    put(out, &mut at, " {\n");
    let mut i = 0;
    while i < members.len() {
        put(out, &mut at, "    ");
        put(out, &mut at, names[i]);
        put(out, &mut at, ": ");
        if members[i].count == 0 {
            put(out, &mut at, members[i].wgsl);
        } else {
            put(out, &mut at, "array<");
            put(out, &mut at, members[i].wgsl);
            put(out, &mut at, ", ");
            put_number(out, &mut at, members[i].count);
            put(out, &mut at, ">");
        }
        put(out, &mut at, ",\n");
        i += 1;
    }
    let mut k = 0;
    while k < pad_after(members) / 4 {
        put(out, &mut at, "    _pad");
        put_number(out, &mut at, k);
        put(out, &mut at, ": u32,\n");
        k += 1;
    }
    put(out, &mut at, "}\n");
    at
}

/// Length of the WGSL text of `write_wgsl_struct`.
pub(crate) const fn wgsl_struct_len(name: &str, names: &[&str], members: &[MemberType]) -> usize {
    write_wgsl_struct(&mut [], name, names, members)
}

/// The WGSL text of `write_wgsl_struct`, `N` (`wgsl_struct_len`) bytes.
pub(crate) const fn wgsl_struct_bytes<const N: usize>(
    name: &str,
    names: &[&str],
    members: &[MemberType],
) -> [u8; N] {
    let mut out = [0u8; N];
    write_wgsl_struct(&mut out, name, names, members);
    out
}

/// Declares a uniform struct shared by Rust and WGSL, once:
///
/// ```ignore
/// uniform_struct! {
///     /// Parameters of the kernel.
///     pub struct BlurParams {
///         pub width: u32,
///         pub height: u32,
///         pub sigma: f32,
///         pub w: [[f32; 4]; 16],
///     }
/// }
/// ```
///
/// gives the `#[repr(C)]` `Pod` struct with the padding WGSL's uniform layout rules put
/// between and after the members (hidden `_padN: [u8; _]` fields of the struct's visibility,
/// computed by `pad_before`/`pad_after`: build values with `..Default::default()`, which is
/// all zeros),
/// `BlurParams::WGSL`, its WGSL struct text (a kernel's module gets it as one of its sources),
/// and `BlurParams::layout(KERNEL_WGSL)`, its `UniformLayout` for the layout test. Member
/// types are those with `UniformMember` (`u32`, `i32`, `f32`, `[f32; 2..4]`, `[[f32; 4]; N]`).
macro_rules! uniform_struct {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $($(#[$fmeta:meta])* $fvis:vis $field:ident : $ty:ty),* $(,)?
        }
    ) => {
        $crate::runtime::uniform::uniform_struct!(@munch $name [$vis]
            [$(#[$meta])* $vis struct $name] [$($field : $ty),*] [] []
            [(_pad0 0) (_pad1 1) (_pad2 2) (_pad3 3) (_pad4 4) (_pad5 5) (_pad6 6) (_pad7 7)
             (_pad8 8) (_pad9 9) (_pad10 10) (_pad11 11) (_pad12 12) (_pad13 13) (_pad14 14)
             (_pad15 15) (_pad16 16) (_pad17 17) (_pad18 18) (_pad19 19) (_pad20 20)
             (_pad21 21) (_pad22 22) (_pad23 23) (_pad24 24) (_pad25 25) (_pad26 26)
             (_pad27 27) (_pad28 28) (_pad29 29) (_pad30 30) (_pad31 31)]
            $([$(#[$fmeta])* $fvis $field : $ty])*
        );
    };
    // one member: its padding field (a hidden name from the list) and the member
    (@munch $name:ident [$pvis:vis] [$($head:tt)*] [$($all:ident : $all_ty:ty),*]
        [$($fields:tt)*] [$($pads:tt)*]
        [($pad:ident $i:tt) $($names:tt)*]
        [$(#[$fmeta:meta])* $fvis:vis $field:ident : $ty:ty] $($rest:tt)*
    ) => {
        $crate::runtime::uniform::uniform_struct!(@munch $name [$pvis]
            [$($head)*] [$($all : $all_ty),*]
            [$($fields)* #[doc(hidden)] $pvis $pad: [u8; $name::$pad], $(#[$fmeta])* $fvis $field: $ty,]
            [$($pads)* const $pad: usize = $crate::runtime::uniform::pad_before(
                &[$(<$all_ty as $crate::runtime::uniform::UniformMember>::MEMBER),*], $i);]
            [$($names)*] $($rest)*
        );
    };
    // all members: the struct, its trailing padding, its WGSL text and layout
    (@munch $_name:ident [$_vis:vis] [$(#[$meta:meta])* $vis:vis struct $name:ident]
        [$($all:ident : $all_ty:ty),*]
        [$($fields:tt)*] [$($pads:tt)*] [($pad:ident $i:tt) $($names:tt)*]
    ) => {
        $(#[$meta])*
        #[repr(C)]
        #[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
        #[allow(missing_docs, reason = "members are named as in the kernel; documented where the name says too little")]
        $vis struct $name {
            $($fields)*
            #[doc(hidden)]
            $vis $pad: [u8; $name::$pad],
        }

        #[allow(non_upper_case_globals, dead_code)]
        impl $name {
            $($pads)*
            const $pad: usize = $crate::runtime::uniform::pad_after(
                &[$(<$all_ty as $crate::runtime::uniform::UniformMember>::MEMBER),*]);

            /// The WGSL struct of the same name and layout.
            pub const WGSL: &'static str = {
                const NAMES: &[&str] = &[$(stringify!($all)),*];
                const MEMBERS: &[$crate::runtime::uniform::MemberType] =
                    &[$(<$all_ty as $crate::runtime::uniform::UniformMember>::MEMBER),*];
                const LEN: usize =
                    $crate::runtime::uniform::wgsl_struct_len(stringify!($name), NAMES, MEMBERS);
                const BYTES: [u8; LEN] = $crate::runtime::uniform::wgsl_struct_bytes::<LEN>(
                    stringify!($name), NAMES, MEMBERS);
                match ::core::str::from_utf8(&BYTES) {
                    Ok(s) => s,
                    Err(_) => panic!("WGSL struct text is not UTF-8"),
                }
            };

            /// The members and their offsets in the Rust struct.
            pub const FIELDS: &'static [(&'static str, usize)] =
                &[$((stringify!($all), ::core::mem::offset_of!($name, $all))),*];

            /// The layout of this struct as `wgsl` (a kernel that reads it, without its
            /// declaration: the module gets `Self::WGSL` beside it) uses it.
            pub const fn layout(wgsl: &'static str) -> $crate::runtime::uniform::UniformLayout {
                $crate::runtime::uniform::UniformLayout {
                    wgsl,
                    wgsl_struct: stringify!($name),
                    generated: Self::WGSL,
                    rust_size: ::core::mem::size_of::<$name>(),
                    fields: Self::FIELDS,
                }
            }
        }

        impl ::core::default::Default for $name {
            fn default() -> Self {
                <Self as bytemuck::Zeroable>::zeroed()
            }
        }

        impl ::core::fmt::Debug for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.debug_struct(stringify!($name))
                    $(.field(stringify!($all), &self.$all))*
                    .finish()
            }
        }
    };
}
pub(crate) use uniform_struct;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_follow_wgsl_alignment() {
        let b = UniformBlock::new()
            .field("a", &1.0f32)
            .field("v", &[1.0f32, 2.0, 3.0])
            .field("k", &7u32)
            .field("p", &[0.5f32, 0.25])
            .field("m", &[0.0f32; 16]);
        let offs: Vec<usize> = b.fields.iter().map(|f| f.offset).collect();
        // a at 0; vec3 aligned to 16; k packed into the vec3's last word; vec2 at 32; mat at 48
        assert_eq!(offs, vec![0, 16, 28, 32, 48]);
        assert_eq!(b.padded_size(), 112);
        assert_eq!(&b.bytes()[28..32], &7u32.to_le_bytes());
        let one = UniformBlock::new().field("a", &1.0f32);
        assert_eq!(
            one.wgsl_struct("P"),
            "struct P {\n    a: f32,\n    _pad0: u32,\n    _pad1: u32,\n    _pad2: u32,\n}\n"
        );
        assert_eq!(UniformBlock::new().padded_size(), 16);
        let mut table = [[0u32; 4]; 64];
        table[1][2] = 0x0102_0304;
        let t = UniformBlock::new().field("k", &1u32).field("table", &table);
        assert_eq!((t.fields[1].offset, t.padded_size()), (16, 1040));
        assert_eq!(
            &t.bytes()[16 + 16 + 8..16 + 16 + 12],
            &0x0102_0304u32.to_le_bytes()
        );
    }

    uniform_struct! {
        /// A struct with every kind of gap.
        struct Declared {
            a: f32,
            v: [f32; 3],
            k: u32,
            p: [f32; 2],
            w: [[f32; 4]; 4],
            z: i32,
        }
    }

    #[test]
    fn a_declared_struct_has_the_block_layout() {
        // the same members as a generated block: the same offsets, size and WGSL text
        let b = UniformBlock::new()
            .field("a", &1.0f32)
            .field("v", &[1.0f32, 2.0, 3.0])
            .field("k", &7u32)
            .field("p", &[0.5f32, 0.25])
            .field("w", &[0.0f32; 16])
            .field("z", &-1i32);
        let offs: Vec<usize> = b.fields.iter().map(|f| f.offset).collect();
        let declared: Vec<usize> = Declared::FIELDS.iter().map(|f| f.1).collect();
        assert_eq!(declared, offs);
        assert_eq!(std::mem::size_of::<Declared>(), b.padded_size());
        assert_eq!(
            Declared::WGSL,
            b.wgsl_struct("Declared")
                .replace("w: mat4x4<f32>", "w: array<vec4<f32>, 4>")
        );
        let d = Declared {
            a: 1.0,
            v: [1.0, 2.0, 3.0],
            k: 7,
            p: [0.5, 0.25],
            z: -1,
            ..Default::default()
        };
        assert_eq!(bytemuck::bytes_of(&d), &b.bytes()[..]);
        assert_eq!(
            format!("{d:?}"),
            "Declared { a: 1.0, v: [1.0, 2.0, 3.0], k: 7, p: [0.5, 0.25], w: [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]], z: -1 }"
        );
        let layout = Declared::layout("");
        assert_eq!((layout.wgsl_struct, layout.rust_size), ("Declared", 128));
    }
}
