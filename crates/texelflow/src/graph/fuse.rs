//! Fusion of per-pixel filters: one generated kernel applies a chain of per-pixel ops
//! (`filters::shape::pixel`) with one read and one write per pixel. Between fused steps the
//! colour is re-quantised to the image's format (8 or 16 bits), so a fused chain gives
//! bit-for-bit the result of the unfused one. An op's function takes its parameter block by value (`chain.opN`), except
//! for ops whose body reads the block in place (`PixelOp::body_by_reference`), whose
//! function is generated here per place in the chain.

use super::filter::PixelOpGpu;
use crate::error::Result;
use crate::runtime::{groups_1d, GpuSlot, Kernel, NodeRecorder};

/// Workgroup size of generated per-pixel kernels. Schedule choice, not algorithm.
const PIXEL_WG: u32 = 256;
// The `table` kernel fills its 256 entries one per invocation.
const _: () = assert!(PIXEL_WG == 256);

/// Schedules of a per-channel op (`PixelOp::PER_CHANNEL`), by its filter name: `pixel`
/// evaluates the function per channel of every pixel, `table` tabulates it per workgroup.
const PER_CHANNEL_VARIANTS: &[&str] = &["pixel", "table"];

/// Whether `o` asks for the `table` kernel: its schedule override in the run's (`rec`'s),
/// else its default. Per-channel ops reject names they do not know; other ops have no
/// schedules.
fn wants_table(rec: &NodeRecorder<'_>, o: &PixelOpGpu) -> Result<bool> {
    if !o.per_channel {
        return Ok(false);
    }
    match rec.schedule(&o.fn_name) {
        None => Ok(o.table_by_default),
        Some("pixel") => Ok(false),
        Some("table") => Ok(true),
        Some(other) => Err(crate::runtime::schedule::unknown(
            &o.fn_name,
            other,
            PER_CHANNEL_VARIANTS,
        )),
    }
}

/// Records one kernel applying `ops` in order to every pixel of `src`, writing `dst`. `with`
/// holds the extra images of the multi-input ops (blends: the second image; a masked blend:
/// the second image, then the mask), in the order of those ops.
pub fn record_fused(
    rec: &mut NodeRecorder<'_>,
    ops: &[PixelOpGpu],
    src: &GpuSlot,
    with: &[GpuSlot],
    dst: &GpuSlot,
) -> Result<()> {
    let desc = src
        .desc
        .image()
        .ok_or_else(|| crate::Error::invalid("per-pixel input must be an image"))?;
    let seconds: usize = ops
        .iter()
        .map(|o| o.inputs.saturating_sub(1) as usize)
        .sum();
    if with.len() != seconds
        || with
            .iter()
            .any(|w| w.desc.image().map(|d| d.pixels()) != Some(desc.pixels()))
    {
        return Err(crate::Error::invalid(format!(
            "fused per-pixel kernel: {seconds} second images of {} pixels expected",
            desc.pixels()
        )));
    }
    if with
        .iter()
        .any(|w| w.desc.image().map(|d| d.format) != Some(desc.format))
    {
        return Err(crate::Error::invalid(format!(
            "fused per-pixel kernel: second images must be {} like the first",
            desc.format.name()
        )));
    }
    let wide = match desc.format {
        crate::PixelFormat::Rgba8 => false,
        crate::PixelFormat::Rgba16 => true,
        f => {
            return Err(crate::Error::unsupported(format!(
                "per-pixel filters take rgba8 or rgba16, got {}",
                f.name()
            )))
        }
    };
    let count = desc.pixels() as u32;
    let key = format!(
        "{}[{}]",
        if wide { "pixel16" } else { "pixel" },
        ops.iter()
            .map(|o| o.fn_name.as_ref())
            .collect::<Vec<_>>()
            .join(",")
    );
    // A built-in op's WGSL is a static source of the kernel; a user kernel's (generated, its
    // names prefixed per source: `filters::user_kernel`) opens the generated part. The key
    // names every op's function, and a user kernel's function name is unique to its source,
    // so two different user kernels never share a compiled kernel.
    let mut sources: Vec<&'static str> = Vec::new();
    let mut owned: Vec<&str> = Vec::new();
    for o in ops {
        match &o.wgsl {
            std::borrow::Cow::Borrowed(w) => {
                if !sources.contains(w) {
                    sources.push(w);
                }
            }
            std::borrow::Cow::Owned(w) => {
                if !owned.contains(&w.as_str()) {
                    owned.push(w);
                }
            }
        }
    }
    // Four pixels per invocation through 16-byte loads and stores: buffers are allocated in
    // 256-byte size classes, so the last group may run past the image into padding that no
    // one reads. Schedule choice (bandwidth), not algorithm.
    // RGBA16: the same 16-byte loads and stores, two pixels per invocation.
    let per_invocation = if wide { 2 } else { 4 };
    let groups = (count as u64).div_ceil(per_invocation);
    // A chain of per-channel ops is one per-channel function of the byte: the table kernel
    // serves the whole chain when every op is per-channel and one of them asks for it. A
    // 16-bit sample has 65536 values, too many for a table: RGBA16 runs the per-pixel kernel.
    let mut table = false;
    for o in ops {
        table |= wants_table(rec, o)?;
    }
    let table = table && ops.iter().all(|o| o.per_channel) && !wide;
    // the header: the quad count and the image size, then where the image lies in the whole
    // one (a tile's origin and the whole size: `NodeRecorder::pixel_window`) for `PixelAt`
    let mut gen: String = owned.iter().map(|w| format!("{w}\n")).collect();
    gen.push_str("struct ChainParams {\n    groups: u32, width: u32, height: u32, _p0: u32,\n    x0: u32, y0: u32, whole_width: u32, whole_height: u32,\n");
    for (i, o) in ops.iter().enumerate() {
        gen.push_str(&format!("    op{i}: {},\n", o.params_struct));
    }
    gen.push_str("}\n@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;\n@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;\n");
    for e in 0..seconds {
        gen.push_str(&format!(
            "@group(0) @binding({}) var<storage, read> with{e}: array<vec4<u32>>;\n",
            2 + e
        ));
    }
    // Ops that read their block in place also get it as words of a storage copy of the chain's
    // parameters (`chain_words`, from word `pw`): a table indexed differently by every
    // invocation is slow from a uniform, which NVIDIA serves one address at a time.
    let words = ops.iter().any(|o| o.body_by_reference.is_some());
    if words {
        gen.push_str(&format!(
            "@group(0) @binding({}) var<storage, read> chain_words: array<u32>;\n",
            2 + seconds
        ));
    }
    gen.push_str(&format!(
        "@group(0) @binding({}) var<uniform> chain: ChainParams;\n",
        2 + seconds + words as usize
    ));
    // ops that read their block in place: their function, once per place in the chain
    let mut offset = CHAIN_HEADER;
    for (i, o) in ops.iter().enumerate() {
        if let Some(body) = o.body_by_reference {
            let at = if o.position { ", at: PixelAt" } else { "" };
            let t = extra_args(o.inputs);
            gen.push_str(&format!("fn {}_op{i}(c: vec4<f32>{t}{at}) -> vec4<f32> {{\n    let p = &chain.op{i};\n    let pw = {}u;\n{body}\n}}\n", o.fn_name, offset / 4));
        }
        offset += o.uniform.len();
    }
    let uniform = chain_uniform(ops, groups, desc, rec.pixel_window);
    let words_buffer = if words {
        Some(rec.upload("texelflow.chain_words", &uniform)?)
    } else {
        None
    };
    if table {
        return record_table(
            rec,
            ops,
            sources,
            gen,
            src,
            dst,
            &uniform,
            words_buffer.as_deref(),
            groups,
        );
    }
    if wide {
        gen_main16(&mut gen, ops, seconds);
    } else {
        gen_main8(&mut gen, ops, seconds);
    }
    let mut kernel = Kernel::new(&key, &sources, "main");
    kernel.generated = Some(gen);
    let mut buffers = vec![&*src.buffer, &*dst.buffer];
    buffers.extend(with.iter().map(|w| &*w.buffer));
    buffers.extend(words_buffer.as_deref());
    rec.dispatch(&kernel, &buffers, &uniform, groups_1d(groups, PIXEL_WG))
}

/// The RGBA8 kernel's entry point: four pixels per invocation.
fn gen_main8(gen: &mut String, ops: &[PixelOpGpu], seconds: usize) {
    // Unrolled by hand, no dynamic vector index: the looped version measured 0.115 ms
    // against 0.021 ms for a copy on the H200 (run 1); `bench --experiments` isolates why.
    gen.push_str(&format!(
        "@compute @workgroup_size({PIXEL_WG})\nfn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{\n    let i = linear_id(wid, nwg, lid, {PIXEL_WG}u);\n    if (i >= chain.groups) {{ return; }}\n    let s = src[i];\n    var c0 = unorm_unpack(s.x);\n    var c1 = unorm_unpack(s.y);\n    var c2 = unorm_unpack(s.z);\n    var c3 = unorm_unpack(s.w);\n"
    ));
    for e in 0..seconds {
        gen.push_str(&format!("    let w{e} = with{e}[i];\n"));
    }
    let position = ops.iter().any(|o| o.position);
    for k in 0..4 {
        if position {
            // the pixel's place, for ops that read it (vignette, haze): 4 pixels per invocation
            gen.push_str(&format!("    let at{k} = PixelAt(vec2<u32>(chain.x0 + (4u * i + {k}u) % chain.width, chain.y0 + (4u * i + {k}u) / chain.width), vec2<u32>(chain.whole_width, chain.whole_height));\n"));
        }
        let lane = ["x", "y", "z", "w"][k];
        apply_chain(
            gen,
            ops,
            &format!("c{k}"),
            &format!("at{k}"),
            "quantize8",
            &|e| format!("unorm_unpack(w{e}.{lane})"),
        );
    }
    gen.push_str("    dst[i] = vec4<u32>(unorm_pack(c0), unorm_pack(c1), unorm_pack(c2), unorm_pack(c3));\n}\n");
}

/// The RGBA16 kernel's entry point: two pixels (four words) per invocation, 16 bits between ops.
fn gen_main16(gen: &mut String, ops: &[PixelOpGpu], seconds: usize) {
    gen.push_str(&format!(
        "@compute @workgroup_size({PIXEL_WG})\nfn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{\n    let i = linear_id(wid, nwg, lid, {PIXEL_WG}u);\n    if (i >= chain.groups) {{ return; }}\n    let s = src[i];\n    var c0 = unorm16_unpack(s.x, s.y);\n    var c1 = unorm16_unpack(s.z, s.w);\n"
    ));
    for e in 0..seconds {
        gen.push_str(&format!("    let w{e} = with{e}[i];\n"));
    }
    let position = ops.iter().any(|o| o.position);
    for k in 0..2 {
        if position {
            gen.push_str(&format!("    let at{k} = PixelAt(vec2<u32>(chain.x0 + (2u * i + {k}u) % chain.width, chain.y0 + (2u * i + {k}u) / chain.width), vec2<u32>(chain.whole_width, chain.whole_height));\n"));
        }
        let words = if k == 0 { ["x", "y"] } else { ["z", "w"] };
        apply_chain(
            gen,
            ops,
            &format!("c{k}"),
            &format!("at{k}"),
            "quantize16",
            &|e| format!("unorm16_unpack(w{e}.{}, w{e}.{})", words[0], words[1]),
        );
    }
    gen.push_str("    dst[i] = vec4<u32>(unorm16_pack(c0), unorm16_pack(c1));\n}\n");
}

/// WGSL applying `ops` in order to the RGBA variable `c`, quantised between ops by the WGSL
/// function `quantize` (`quantize8`, `quantize16`) as storing and reloading the image would
/// (the CPU runs a chain one filter at a time). A multi-input op's extra pixels (second image,
/// mask) are `second(e)`, read from their images' words `w<e>`, numbered across the chain.
fn apply_chain(
    gen: &mut String,
    ops: &[PixelOpGpu],
    c: &str,
    at: &str,
    quantize: &str,
    second: &dyn Fn(usize) -> String,
) {
    let mut e = 0;
    for (i, o) in ops.iter().enumerate() {
        if i > 0 {
            gen.push_str(&format!("    {c} = {quantize}({c});\n"));
        }
        let at = if o.position {
            format!(", {at}")
        } else {
            String::new()
        };
        let mut t = String::new();
        for _ in 1..o.inputs {
            t.push_str(&format!(", {}", second(e)));
            e += 1;
        }
        if o.body_by_reference.is_some() {
            gen.push_str(&format!("    {c} = {}_op{i}({c}{t}{at});\n", o.fn_name));
        } else {
            gen.push_str(&format!(
                "    {c} = {}({c}{t}, chain.op{i}{at});\n",
                o.fn_name
            ));
        }
    }
}

/// Bytes of `ChainParams`' header before the first op's block (two 16-byte rows).
const CHAIN_HEADER: usize = 32;

/// `ChainParams`: the quad count, the image size and its window, then every op's parameter block.
fn chain_uniform(
    ops: &[PixelOpGpu],
    groups: u64,
    desc: crate::ImageDesc,
    window: Option<crate::region::PixelWindow>,
) -> Vec<u8> {
    let w = window.unwrap_or(crate::region::PixelWindow {
        x0: 0,
        y0: 0,
        width: desc.width,
        height: desc.height,
    });
    let mut uniform = Vec::new();
    uniform.extend_from_slice(bytemuck::bytes_of(&[
        groups as u32,
        desc.width,
        desc.height,
        0,
        w.x0,
        w.y0,
        w.width,
        w.height,
    ]));
    for o in ops {
        uniform.extend_from_slice(&o.uniform);
    }
    uniform
}

/// The `table` schedule of a chain of per-channel ops: the shape of the per-pixel kernel
/// (one 16-byte load and store, four pixels per invocation), but each workgroup first
/// evaluates the chain once per byte value, invocation `lid` for the byte `lid` in all four
/// channels, with the very expression the per-pixel kernel uses (unpack, the ops with
/// `quantize8` between them, pack), so the results are bit-identical; entry `b` holds the
/// four output bytes for input byte `b` in their channels' places. Then every channel of
/// the invocation's pixels is looked up: 16 reads of workgroup memory instead of, for
/// gamma, 12 `pow`s.
#[allow(clippy::too_many_arguments)]
fn record_table(
    rec: &mut NodeRecorder<'_>,
    ops: &[PixelOpGpu],
    sources: Vec<&'static str>,
    mut gen: String,
    src: &GpuSlot,
    dst: &GpuSlot,
    uniform: &[u8],
    words: Option<&wgpu::Buffer>,
    groups: u64,
) -> Result<()> {
    let key = format!(
        "pixel.table[{}]",
        ops.iter()
            .map(|o| o.fn_name.as_ref())
            .collect::<Vec<_>>()
            .join(",")
    );
    gen.push_str(&format!("var<workgroup> lut: array<u32, {PIXEL_WG}>;\n"));
    gen.push_str("fn lut_pixel(p: u32) -> u32 {\n    return (lut[p & 255u] & 0xffu) | (lut[(p >> 8u) & 255u] & 0xff00u) | (lut[(p >> 16u) & 255u] & 0xff0000u) | (lut[p >> 24u] & 0xff000000u);\n}\n");
    // The pixel load is issued before the table is built, so its latency overlaps the
    // arithmetic; the bounds check returns only after the barrier, which every invocation
    // of the workgroup must reach.
    gen.push_str(&format!(
        "@compute @workgroup_size({PIXEL_WG})\nfn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{\n    let i = linear_id(wid, nwg, lid, {PIXEL_WG}u);\n    var s = vec4<u32>(0u);\n    if (i < chain.groups) {{ s = src[i]; }}\n    var c = unorm_unpack(lid * 0x01010101u);\n"
    ));
    apply_chain(&mut gen, ops, "c", "", "quantize8", &|_| String::new());
    gen.push_str("    lut[lid] = unorm_pack(c);\n    workgroupBarrier();\n    if (i >= chain.groups) { return; }\n    dst[i] = vec4<u32>(lut_pixel(s.x), lut_pixel(s.y), lut_pixel(s.z), lut_pixel(s.w));\n}\n");
    let mut kernel = Kernel::new(&key, &sources, "main");
    kernel.generated = Some(gen);
    // every entry of `lut` is written before the barrier and read after it
    let mut buffers = vec![&*src.buffer, &*dst.buffer];
    buffers.extend(words);
    rec.dispatch_uninit(&kernel, &buffers, uniform, groups_1d(groups, PIXEL_WG))
}

/// The extra arguments of a per-pixel function of `inputs` images (a blend's second pixel
/// `t`, a masked blend's mask pixel `m`), shared by the fused kernel and the declared
/// filters' WGSL (`filters::shape::pixel`).
pub fn extra_args(inputs: u32) -> &'static str {
    match inputs {
        2 => ", t: vec4<f32>",
        3 => ", t: vec4<f32>, m: vec4<f32>",
        _ => "",
    }
}
