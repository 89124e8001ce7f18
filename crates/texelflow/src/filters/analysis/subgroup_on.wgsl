// Workgroup combine helpers, subgroup version: one value per subgroup reaches workgroup
// memory, written by its leader. Twin: subgroup_off.wgsl (same functions, no subgroups).
fn sg_min4(v: vec4<u32>) -> vec4<u32> { return subgroupMin(v); }
fn sg_max4(v: vec4<u32>) -> vec4<u32> { return subgroupMax(v); }
fn sg_add4(v: vec4<u32>) -> vec4<u32> { return subgroupAdd(v); }
fn sg_min1(v: u32) -> u32 { return subgroupMin(v); }
fn sg_max1(v: u32) -> u32 { return subgroupMax(v); }
fn sg_add1(v: u32) -> u32 { return subgroupAdd(v); }
// Called in uniform control flow, so the first active lane is lane 0 of each subgroup.
fn sg_leader(lid: u32) -> bool { return subgroupBroadcastFirst(lid) == lid; }
