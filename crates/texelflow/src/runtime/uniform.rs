//! Uniform blocks generated from typed Rust fields: one list of `(name, value)` pairs gives
//! both the bytes uploaded and the WGSL struct that reads them, laid out by WGSL's uniform
//! rules, so there is no hand-kept mirror to drift. Declared filters (`pixel_filter!`) build
//! their parameter blocks here; `tests/uniform_layout.rs` checks the offsets against naga.

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
}
