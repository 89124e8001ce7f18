//! Every uniform the registry knows has the size and field offsets its WGSL struct has under
//! WGSL's uniform layout rules (parsed with naga): the `#[repr(C)]` structs of the custom
//! kernels, declared once with `uniform_struct!` (`offset_of!` on the Rust struct against the
//! members of the generated WGSL struct of the same names) and the blocks generated for
//! declared per-pixel filters (`runtime::uniform`), whose WGSL struct is generated from the
//! same layout; sizes are multiples of 16 bytes (so per-pixel parameter blocks can be
//! concatenated in fused kernels). Every kernel also compiles in naga's front end, so a WGSL
//! typo fails here with a line number.

use texelflow::registry;

fn module(src: &str) -> naga::Module {
    let full = format!(
        "{}\n{}\n{}",
        texelflow::extend::COMMON_WGSL,
        texelflow::extend::CONV_WGSL,
        src
    );
    naga::front::wgsl::parse_str(&full)
        .unwrap_or_else(|e| panic!("WGSL does not parse:\n{}", e.emit_to_string(&full)))
}

#[test]
fn uniform_structs_match_wgsl_layout() {
    let mut checked = 0;
    for def in registry::all() {
        for u in def.uniforms {
            check_layout(def.name, u);
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} uniforms checked");
}

/// The WGSL struct of `u` (its generated text, then the kernel source that reads it), parsed
/// by naga, has the Rust struct's size and every Rust field at the Rust offset (`offset_of!`).
fn check_layout(name: &str, u: &texelflow::extend::UniformLayout) {
    let m = module(&format!("{}\n{}", u.generated, u.wgsl));
    let ty = m
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some(u.wgsl_struct))
        .unwrap_or_else(|| panic!("{}: no WGSL struct {}", name, u.wgsl_struct));
    let naga::TypeInner::Struct { span, .. } = ty.1.inner else {
        panic!("{} is not a struct", u.wgsl_struct)
    };
    assert_eq!(
        span as usize, u.rust_size,
        "{}: WGSL {} is {span} bytes, Rust mirror is {}",
        name, u.wgsl_struct, u.rust_size
    );
    assert_eq!(
        u.rust_size % 16,
        0,
        "{}: {} size not a multiple of 16",
        name,
        u.wgsl_struct
    );
    let offsets = member_offsets(&m, u.wgsl_struct);
    for (field, offset) in u.fields {
        let got = offsets
            .iter()
            .find(|(n, _)| n == field)
            .unwrap_or_else(|| panic!("{}: WGSL {} has no member {field}", name, u.wgsl_struct));
        assert_eq!(
            got.1 as usize, *offset,
            "{}: {}.{field} at {} in WGSL, {offset} in Rust",
            name, u.wgsl_struct, got.1
        );
    }
}

/// The check above fails when one side's order differs: the generated WGSL text of a real
/// registry uniform with two members swapped (as a hand edit of either side would leave it)
/// puts them at offsets the Rust struct does not have.
#[test]
fn a_reordered_member_is_detected() {
    let def = registry::all()
        .iter()
        .find(|d| d.name == "hough_line_detection")
        .expect("hough_line_detection is registered");
    let u = def.uniforms[0];
    assert!(u.generated.contains("    width: u32,\n    height: u32,\n"));
    check_layout(def.name, &u);
    let swapped = u.generated.replace(
        "    width: u32,\n    height: u32,\n",
        "    height: u32,\n    width: u32,\n",
    );
    let reordered = texelflow::extend::UniformLayout {
        generated: Box::leak(swapped.into_boxed_str()),
        ..u
    };
    let caught = std::panic::catch_unwind(|| check_layout(def.name, &reordered));
    assert!(caught.is_err(), "a swapped member went unnoticed");
}

fn member_offsets(m: &naga::Module, name: &str) -> Vec<(String, u32)> {
    let ty = m
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no WGSL struct {name}"));
    let naga::TypeInner::Struct { members, .. } = &ty.1.inner else {
        panic!("{name} is not a struct")
    };
    members
        .iter()
        .map(|mb| (mb.name.clone().unwrap_or_default(), mb.offset))
        .collect()
}

/// Declared per-pixel filters: the generated WGSL struct, parsed by naga, puts every field
/// where the uploaded bytes have it, and spans exactly those bytes.
#[test]
fn generated_pixel_uniforms_match_wgsl_layout() {
    let mut checked = 0;
    for def in registry::all() {
        let Ok(f) = (def.build)(&texelflow::params::Args::defaults(def)) else {
            continue;
        };
        let Some(op) = f.pixel_op() else { continue };
        // a body that reads its block in place is wrapped here as the fused kernel wraps it
        let wrapped = op.body_by_reference.map(|body| {
            format!("struct ChainParams {{ op0: {} }}\n@group(0) @binding(0) var<uniform> chain: ChainParams;\n@group(0) @binding(1) var<storage, read> chain_words: array<u32>;\nfn {}_op0(c: vec4<f32>) -> vec4<f32> {{\n    let p = &chain.op0;\n    let pw = 4u;\n{body}\n}}\n", op.params_struct, op.fn_name)
        });
        let m = module(&format!("{}\n{}", op.wgsl, wrapped.unwrap_or_default()));
        let ty = m
            .types
            .iter()
            .find(|(_, t)| t.name.as_deref() == Some(op.params_struct.as_ref()))
            .unwrap_or_else(|| panic!("{}: no struct {}", def.name, op.params_struct));
        let naga::TypeInner::Struct { span, .. } = ty.1.inner else {
            panic!()
        };
        assert_eq!(
            span as usize,
            op.uniform.len(),
            "{}: WGSL {} is {span} bytes, uploaded {}",
            def.name,
            op.params_struct,
            op.uniform.len()
        );
        let offsets = member_offsets(&m, &op.params_struct);
        for f in &op.fields {
            let got = offsets
                .iter()
                .find(|(n, _)| n == f.name)
                .unwrap_or_else(|| panic!("{}: no member {}", def.name, f.name));
            assert_eq!(
                got.1 as usize, f.offset,
                "{}: {}.{} at {} in WGSL, written at {}",
                def.name, op.params_struct, f.name, got.1, f.offset
            );
        }
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} per-pixel uniforms checked");
}

/// A block whose Rust layout disagrees with WGSL's rules is caught: a vec3 placed at 8-byte
/// alignment (as a naive packer would) is at 16 in WGSL.
#[test]
fn an_offset_mismatch_is_detected() {
    let m =
        module("struct P { a: vec2<f32>, v: vec3<f32> }\n@group(0) @binding(0) var<uniform> p: P;");
    let offs = member_offsets(&m, "P");
    assert_eq!(offs[1].1, 16);
    let b = texelflow::extend::UniformBlock::new()
        .field("a", &[0.0f32; 2])
        .field("v", &[0.0f32; 3]);
    assert_eq!(b.fields[1].offset, 16);
}

#[test]
fn a_layout_mismatch_is_detected() {
    // The check above must be able to fail: a struct with a vec3 member is 16, not 12, bytes.
    let m = module("struct P { a: vec3<f32> }\n@group(0) @binding(0) var<uniform> p: P;");
    let ty = m
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some("P"))
        .unwrap();
    let naga::TypeInner::Struct { span, .. } = ty.1.inner else {
        panic!()
    };
    assert_ne!(span as usize, std::mem::size_of::<[f32; 3]>());
}
