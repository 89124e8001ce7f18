// Workgroup combine helpers for devices without subgroup operations: every invocation is
// its own leader and writes its own value to workgroup memory (twin: subgroup_on.wgsl).
fn sg_min4(v: vec4<u32>) -> vec4<u32> { return v; }
fn sg_max4(v: vec4<u32>) -> vec4<u32> { return v; }
fn sg_add4(v: vec4<u32>) -> vec4<u32> { return v; }
fn sg_min1(v: u32) -> u32 { return v; }
fn sg_max1(v: u32) -> u32 { return v; }
fn sg_add1(v: u32) -> u32 { return v; }
fn sg_leader(lid: u32) -> bool { return true; }
