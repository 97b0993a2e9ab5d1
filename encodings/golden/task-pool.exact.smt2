; benchmark generated from rust API
(set-info :status unknown)
(declare-fun c1 () Int)
(declare-fun c3 () Int)
(declare-fun c9 () Int)
(declare-fun c11 () Int)
(declare-fun v2 () Bool)
(declare-fun v3 () Bool)
(declare-fun v5 () Bool)
(declare-fun v6 () Bool)
(declare-fun v8 () Bool)
(declare-fun v9 () Bool)
(declare-fun v11 () Bool)
(declare-fun v12 () Bool)
(declare-fun v16 () Bool)
(declare-fun v15 () Bool)
(declare-fun v14 () Bool)
(declare-fun v13 () Bool)
(declare-fun v17 () Bool)
(declare-fun v18 () Bool)
(declare-fun v19 () Bool)
(declare-fun v20 () Bool)
(declare-fun v21 () Bool)
(declare-fun v22 () Bool)
(declare-fun v23 () Bool)
(declare-fun v24 () Bool)
(assert
 (> c1 10))
(assert
 (< c1 65))
(assert
 (> c3 20))
(assert
 (< c3 65))
(assert
 (> c9 50))
(assert
 (< c9 65))
(assert
 (< c1 c9))
(assert
 (> c11 60))
(assert
 (< c11 65))
(assert
 (< c3 c11))
(assert
 (let (($x32 (< c1 35)))
 (let (($x108 (not v2)))
 (or $x108 $x32))))
(assert
 (let (($x32 (< c1 35)))
 (let (($x116 (not $x32)))
 (let (($x115 (not v3)))
 (or $x115 $x116)))))
(assert
 (let (($x34 (< c3 30)))
 (let (($x119 (not v5)))
 (or $x119 $x34))))
(assert
 (let (($x34 (< c3 30)))
 (let (($x127 (not $x34)))
 (let (($x126 (not v6)))
 (or $x126 $x127)))))
(assert
 (let (($x36 (< c9 55)))
 (let (($x130 (not v8)))
 (or $x130 $x36))))
(assert
 (let (($x36 (< c9 55)))
 (let (($x138 (not $x36)))
 (let (($x137 (not v9)))
 (or $x137 $x138)))))
(assert
 (let (($x37 (< c9 c11)))
 (let (($x141 (not v11)))
 (or $x141 $x37))))
(assert
 (let (($x37 (< c9 c11)))
 (let (($x150 (not $x37)))
 (let (($x149 (not v12)))
 (or $x149 $x150)))))
(assert
 (or v13 v14 v15 v16))
(assert
 (let (($x154 (not v17)))
 (or $x154 v15)))
(assert
 (let (($x157 (not v18)))
 (or $x157 v16)))
(assert
 (let (($x157 (not v18)))
 (or $x157 v2)))
(assert
 (let (($x162 (not v19)))
 (or $x162 v15)))
(assert
 (let (($x162 (not v19)))
 (or $x162 v5)))
(assert
 (let (($x167 (not v20)))
 (or $x167 v16)))
(assert
 (let (($x170 (not v21)))
 (or $x170 v14)))
(assert
 (let (($x170 (not v21)))
 (or $x170 v6)))
(assert
 (let (($x175 (not v22)))
 (or $x175 v16)))
(assert
 (let (($x178 (not v23)))
 (or $x178 v13)))
(assert
 (let (($x178 (not v23)))
 (or $x178 v3)))
(assert
 (let (($x183 (not v24)))
 (or $x183 v15)))
(assert
 (let (($x183 (not v24)))
 (or $x183 v9 v12)))
(assert
 (let (($x188 (not v13)))
 (or $x188 v17 v18)))
(assert
 (let (($x191 (not v14)))
 (or $x191 v19 v20)))
(assert
 (let (($x194 (not v15)))
 (or $x194 v21 v22)))
(assert
 (let (($x197 (not v16)))
 (or $x197 v23 v24)))
(check-sat)
